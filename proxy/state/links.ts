/**
 * Payment links (docs/links.md) and their uses, as every store keeps them. A use is held from the
 * moment a customer starts paying (before the bank) until its checkout is paid or can no longer be
 * paid; the caps count paid and held uses alike, so two customers racing for the last use get one
 * checkout between them. Reserving, settling and changing a link's state are each one atomic step,
 * decided by the rules below, which every store calls rather than restates.
 */
import { fromUnits, toUnits } from '../../lib/money.ts';
import type { LINK_KINDS } from '../../schemas/links.ts';
import { AMOUNT_LIMITS } from '../../schemas/pay.ts';
import { decodePosition, InvalidCursorError, type Page } from './cursors.ts';
import type { NewEvent } from './outbox.ts';

export const LINK_STATES = ['active', 'paused', 'ended'] as const;
export type LinkState = (typeof LINK_STATES)[number];

/** A link made to share (`link`), or by an operator at a till for one customer's payment (`counter`). */
export type LinkKind = (typeof LINK_KINDS)[number];

/** A page of a list of links: newest first, of one kind when `kind` is given. */
export interface LinkListQuery {
  limit: number;
  cursor?: string | undefined;
  kind?: LinkKind | undefined;
}

/** Who made a link: an operator (by account id) or the merchant's server (by key id). */
export interface LinkCreator {
  kind: 'operator' | 'merchant-key';
  id: string;
}

export interface LinkRecord {
  /** The link's name in its URL: 144 random bits, base64url; no personal data. */
  code: string;
  kind: LinkKind;
  title: string;
  description: string;
  currencyCode: string;
  /** The amount to pay; null: the customer types one within `minAmount..maxAmount`. */
  amount: string | null;
  minAmount: string | null;
  maxAmount: string | null;
  /** The payment's reference, or a template whose `{n}` is the use's number (`INV-{n}`). */
  reference: string;
  /** Epoch ms after which it takes no payment; null: never. */
  expiresAt: number | null;
  /** Payments it takes at most (1: single-use); null: no cap. */
  maxUses: number | null;
  /** The total it takes at most; null: no cap. */
  maxTotal: string | null;
  /** The page's language; null: the customer's browser decides. */
  language: string | null;
  /** The shop's page the customer goes back to; null: the link's own receipt page. */
  returnUrl: string | null;
  state: LinkState;
  createdBy: LinkCreator;
  createdAt: number;
  updatedAt: number;
  /** The number of the last use reserved: each use's `{n}`, never given twice. */
  counter: number;
  paidUses: number;
  paidTotal: string;
  heldUses: number;
  heldTotal: string;
  lastPaidAt: number | null;
}

export type LinkUseState = 'held' | 'paid' | 'released';

/** One customer's start at paying a link: the checkout made for it. */
export interface LinkUse {
  checkoutId: string;
  code: string;
  /** The link's counter for this use (`{n}` of its reference). */
  n: number;
  amount: string;
  reference: string;
  state: LinkUseState;
  createdAt: number;
  settledAt: number | null;
  transactionId: string | null;
}

/** A use asked for: its checkout, its amount, and its reference from the use's number. */
export type UseRequest = Pick<LinkUse, 'checkoutId' | 'amount'> & { reference: (n: number) => string };

/** Why a link takes no new payment now. */
export type LinkRefusal = 'paused' | 'ended' | 'expired' | 'used-up' | 'total-reached';

export type Reservation =
  | { outcome: 'reserved'; link: LinkRecord; use: LinkUse }
  | { outcome: 'refused'; link: LinkRecord; reason: LinkRefusal };

export type LinkPage = Page<'links', LinkRecord>;
export type LinkUsePage = Page<'uses', LinkUse>;

/** What settling a use carries: the payment that paid it, and the merchant's events written with it. */
export interface SettleEffects {
  transactionId?: string | null;
  events?: (link: LinkRecord, use: LinkUse) => NewEvent[];
}

export interface LinkStore {
  /** Stores a new link; a code already taken is refused (it never is: codes are random). */
  createLink(link: LinkRecord): Promise<void>;
  linkByCode(code: string): Promise<LinkRecord | undefined>;
  /** Newest first; of one kind when the query names it. */
  listLinks(query: LinkListQuery): Promise<LinkPage>;
  /**
   * Moves a link to `to` if it is in one of `from` now, in one step; the link as it is after (moved
   * or not), undefined when there is none.
   */
  setLinkState(
    code: string,
    from: readonly LinkState[],
    to: LinkState,
    at: number,
  ): Promise<{ changed: boolean; link: LinkRecord } | undefined>;
  /**
   * Holds a use of the link for a checkout about to be made, numbered by the link's counter, in one
   * step with the check of its state, expiry and caps (`decideUse`); undefined when there is no link.
   */
  reserveUse(code: string, use: UseRequest, now: number): Promise<Reservation | undefined>;
  /**
   * Settles a held use once: paid (counted, with `events` written in the same step) or released
   * (its hold given back). Undefined when the use is not held (settled before, or none).
   */
  settleUse(
    checkoutId: string,
    to: Exclude<LinkUseState, 'held'>,
    at: number,
    effects?: SettleEffects,
  ): Promise<{ link: LinkRecord; use: LinkUse } | undefined>;
  useByCheckout(checkoutId: string): Promise<LinkUse | undefined>;
  /** Uses still held, oldest first: the sweep's work. */
  heldUses(limit: number): Promise<LinkUse[]>;
  /** A link's uses, newest first. */
  usesOf(code: string, query: { limit: number; cursor?: string | undefined }): Promise<LinkUsePage>;
}

const SCALE = AMOUNT_LIMITS.fractionDigits;
/** `a + b`, amounts at the payment service's scale. */
export const plusAmount = (a: string, b: string) => fromUnits(toUnits(a, SCALE) + toUnits(b, SCALE), SCALE);
/** `a - b`, amounts at the payment service's scale. */
export const minusAmount = (a: string, b: string) => fromUnits(toUnits(a, SCALE) - toUnits(b, SCALE), SCALE);

/**
 * Whether a link may take one more use of `amount` now: active, not expired, and within its caps
 * counting the uses held as well as those paid. The rule of `reserveUse`, shared by every store.
 */
export function decideUse(link: LinkRecord, amount: string, now: number): LinkRefusal | undefined {
  if (link.state !== 'active') return link.state;
  if (link.expiresAt !== null && link.expiresAt <= now) return 'expired';
  if (link.maxUses !== null && link.paidUses + link.heldUses >= link.maxUses) return 'used-up';
  if (
    link.maxTotal !== null &&
    toUnits(plusAmount(plusAmount(link.paidTotal, link.heldTotal), amount), SCALE) > toUnits(link.maxTotal, SCALE)
  )
    return 'total-reached';
  return undefined;
}

/** The link and its new use once `decideUse` allowed it. */
export function reserved(link: LinkRecord, use: UseRequest, now: number): { link: LinkRecord; use: LinkUse } {
  const n = link.counter + 1;
  return {
    link: { ...link, counter: n, heldUses: link.heldUses + 1, heldTotal: plusAmount(link.heldTotal, use.amount) },
    use: {
      checkoutId: use.checkoutId,
      code: link.code,
      n,
      amount: use.amount,
      reference: use.reference(n),
      state: 'held',
      createdAt: now,
      settledAt: null,
      transactionId: null,
    },
  };
}

/** The link and the use once a held use is settled: its hold given back, and counted when paid. */
export function settled(
  link: LinkRecord,
  use: LinkUse,
  to: Exclude<LinkUseState, 'held'>,
  at: number,
  transactionId: string | null,
): { link: LinkRecord; use: LinkUse } {
  const released = { ...link, heldUses: link.heldUses - 1, heldTotal: minusAmount(link.heldTotal, use.amount) };
  return {
    link:
      to === 'paid'
        ? {
            ...released,
            paidUses: link.paidUses + 1,
            paidTotal: plusAmount(link.paidTotal, use.amount),
            lastPaidAt: at,
          }
        : released,
    use: { ...use, state: to, settledAt: at, transactionId: transactionId ?? use.transactionId },
  };
}

export class InvalidLinkCursorError extends InvalidCursorError {}

// The links' lists page as every list does (Redis's store takes it from here).
export { pageAfter } from './cursors.ts';

/** Cursors of the links' lists: the position (createdAt, id) of the last item seen. */
export function decodeLinkCursor(cursor: string): { createdAt: number; id: string } {
  const [createdAt, id] = decodePosition(cursor, '[A-Za-z0-9_-]{1,100}', InvalidLinkCursorError);
  return { createdAt, id };
}
