/**
 * Where a purchase is kept so that the customer finds it again: its token in the page's address
 * (`?kassa_purchase=<token>`, the purchase's link: a reload, a bookmark or another tab shows it), and
 * in this tab's sessionStorage (the bank's return, to a page whose address lost it).
 */

export const PURCHASE_PARAM = 'kassa_purchase';
const KEY = 'kassa:purchase:';

/** Tokens as the proxy makes them: letters, digits, `_` and `-`. */
const TOKEN = /^[A-Za-z0-9_-]{16,200}$/;
export const isPurchaseToken = (value: string | null | undefined): value is string => !!value && TOKEN.test(value);

/** The purchase token in the page's address, if any. */
export function linkedPurchase(): string | undefined {
  const token = new URL(location.href).searchParams.get(PURCHASE_PARAM);
  return isPurchaseToken(token) ? token : undefined;
}

/** `url` with the purchase's token (replacing any), or without one. */
export function withPurchase(url: string, token: string | undefined): string {
  const address = new URL(url, location.href);
  address.searchParams.delete(PURCHASE_PARAM);
  if (token) address.searchParams.set(PURCHASE_PARAM, token);
  return address.href;
}

/** Puts the purchase's link in the page's address (or takes it out), without a new history entry. */
export function showLink(token: string | undefined): void {
  const next = withPurchase(location.href, token);
  if (next !== location.href) history.replaceState(history.state, '', next);
}

/** This tab's purchase at one proxy. Storage may be refused (some private modes): then the address alone keeps it. */
export class PurchaseStore {
  private readonly name: string;

  constructor(origin: string) {
    this.name = KEY + origin;
  }

  read(): string | undefined {
    try {
      const token = sessionStorage.getItem(this.name);
      return isPurchaseToken(token) ? token : undefined;
    } catch {
      return undefined;
    }
  }

  save(token: string | undefined): void {
    try {
      if (token) sessionStorage.setItem(this.name, token);
      else sessionStorage.removeItem(this.name);
    } catch {
      // the address keeps it
    }
  }
}
