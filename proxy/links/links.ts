import type { NewLink } from '../../schemas/links.ts';
import { ConflictError, InvalidInputError, NotFoundError } from '../domain/domain-errors.ts';
import { newCheckoutId, type Checkouts } from '../payments/checkouts.ts';
import type { ChangeSignal } from '../state/coordination.ts';
import type { Checkout, Payment } from '../state/records.ts';
import {
  InvalidLinkCursorError,
  type LinkCreator,
  type LinkKind,
  type LinkListQuery,
  type LinkPage,
  type LinkRecord,
  type LinkState,
  type LinkStore,
  type LinkUse,
  type LinkUsePage,
  type Reservation,
} from '../state/links.ts';
import type { NewEvent } from '../state/outbox.ts';
import { isLinkCode } from './link-codes.ts';
import { linkRefusalError } from './link-errors.ts';
import { linkReceiptPath } from './link-views.ts';
import { amountToPay, linkRecord, referenceOf, type ShopTerms } from './link-terms.ts';

/**
 * How long a link's checkout may be paid: the customer is at their bank within it. Its use is held
 * that long at most, and longer only while a payment started within it is still under way.
 */
export const LINK_CHECKOUT_TTL_SECONDS = 30 * 60;
/** A use whose checkout was never made (the process stopped between the two) is given back after this. */
const ORPHAN_AFTER_MS = 60_000;

export interface LinksOptions {
  /** The store's links (`Store.links`). */
  links: LinkStore;
  checkouts: Checkouts;
  shop: ShopTerms;
  /** Told each link whose uses or state changed (a customer started paying, it was ended): counters follow it. */
  changes?: ChangeSignal;
  /** The merchant's events of a paid use (`link.paid`), written in the step that counts it. */
  paidEvents?: (link: LinkRecord, use: LinkUse, payment: Payment, checkout: Checkout) => NewEvent[];
}

/** What changing a link's state asks: from which states, to which. */
const MOVES = {
  pause: { from: ['active'], to: 'paused' },
  resume: { from: ['paused'], to: 'active' },
  end: { from: ['active', 'paused'], to: 'ended' },
} as const satisfies Record<string, { from: readonly LinkState[]; to: LinkState }>;
export type LinkMove = keyof typeof MOVES;

/**
 * Payment links: made by an operator or the merchant's server within the shop's terms, paused,
 * resumed and ended; paid through a checkout made for each customer who starts paying, so that
 * every link payment is a normal payment. A use is held from that moment, before the bank, and
 * counted against the link's caps at once; it is counted as paid when its checkout is, and given
 * back when its checkout can no longer be paid.
 */
export class Links {
  constructor(private readonly options: LinksOptions) {}

  async create(input: NewLink, createdBy: LinkCreator, kind: LinkKind = 'link', now = Date.now()): Promise<LinkRecord> {
    const link = linkRecord(input, this.options.shop, createdBy, now, kind);
    await this.options.links.createLink(link);
    return link;
  }

  async get(code: string): Promise<LinkRecord> {
    const link = isLinkCode(code) ? await this.options.links.linkByCode(code) : undefined;
    if (!link) throw new NotFoundError('Unknown link');
    return link;
  }

  list(query: LinkListQuery): Promise<LinkPage> {
    return readable(this.options.links.listLinks(query));
  }

  /** The link's uses (its payments and those under way), newest first. */
  async uses(code: string, query: { limit: number; cursor?: string | undefined }): Promise<LinkUsePage> {
    await this.get(code);
    return readable(this.options.links.usesOf(code, query));
  }

  /** Pauses, resumes or ends a link; a move its state does not allow is a conflict naming the state. */
  async move(code: string, move: LinkMove, now = Date.now()): Promise<LinkRecord> {
    const { from, to } = MOVES[move];
    const moved = isLinkCode(code) ? await this.options.links.setLinkState(code, from, to, now) : undefined;
    if (!moved) throw new NotFoundError('Unknown link');
    if (!moved.changed) throw new ConflictError(`The link is ${moved.link.state}: it cannot be ${MOVED_WORD[move]}`);
    this.changed(code);
    return moved.link;
  }

  /**
   * A customer starts paying: a use is held (or a typed error says why not: used up, total reached,
   * paused, ended, expired), then the checkout is made for it, with the use's reference and the link
   * in its metadata. Returns the checkout, which the page pays like any other.
   */
  async startPaying(
    code: string,
    typed: string | undefined,
    now = Date.now(),
  ): Promise<{ link: LinkRecord; use: LinkUse; checkout: Checkout }> {
    const link = await this.get(code);
    const amount = amountToPay(link, typed);
    const checkoutId = newCheckoutId();
    let reservation = await this.reserve(link, checkoutId, amount, now);
    if (reservation?.outcome === 'refused' && reservation.link.heldUses > 0 && isCapped(reservation.reason)) {
      // Uses held by checkouts no longer payable come back first, so that "used up" is the truth.
      await this.settleHeld(code);
      reservation = await this.reserve(link, checkoutId, amount, now);
    }
    if (!reservation) throw new NotFoundError('Unknown link');
    if (reservation.outcome === 'refused') {
      // Others' uses took more of an open link's total since it was read: the amount out of what is left.
      if (reservation.reason === 'total-reached') amountToPay(reservation.link, typed);
      throw linkRefusalError(reservation.reason);
    }
    const { use } = reservation;
    try {
      const { checkout } = await this.options.checkouts.create({
        checkoutId,
        amount,
        currencyCode: link.currencyCode,
        reference: use.reference,
        metadata: { link: code },
        ttlSeconds: checkoutTtlSeconds(link, now),
      });
      this.changed(code);
      return { link: reservation.link, use, checkout };
    } catch (error) {
      await this.options.links.settleUse(checkoutId, 'released', Date.now());
      throw error;
    }
  }

  /**
   * Settles a held use by its checkout: paid once the checkout's payment is COMPLETED (with the
   * merchant's events), given back once nothing can pay it any more. A failed payment keeps the use
   * while its checkout may still be paid: the customer may try again on it, and counting the use back
   * at once would let that retry pay past the cap.
   */
  async settle(use: LinkUse, now = Date.now()): Promise<LinkUse | undefined> {
    if (use.state !== 'held') return use;
    const { links, checkouts, paidEvents } = this.options;
    const checkout = await checkouts.get(use.checkoutId);
    if (!checkout) {
      if (now - use.createdAt < ORPHAN_AFTER_MS) return use;
      return (await links.settleUse(use.checkoutId, 'released', now))?.use;
    }
    const { attempt, payment } = await checkouts.latest(checkout);
    if (payment?.status === 'COMPLETED') {
      const settled = await links.settleUse(use.checkoutId, 'paid', now, {
        transactionId: payment.transactionId,
        ...(paidEvents ? { events: (link, paid) => paidEvents(link, paid, payment, checkout) } : {}),
      });
      return settled?.use;
    }
    const inFlight = attempt?.state === 'pending' || (payment !== undefined && payment.status !== 'FAILED');
    if (checkout.expiresAt <= now && !inFlight) return (await links.settleUse(use.checkoutId, 'released', now))?.use;
    return use;
  }

  /** Settles the uses held of one link (all links' when `code` is undefined), oldest first; how many were paid. */
  async settleHeld(code?: string, limit = 200): Promise<number> {
    let paid = 0;
    for (const use of await this.options.links.heldUses(limit))
      if (code === undefined || use.code === code) if ((await this.settle(use))?.state === 'paid') paid++;
    return paid;
  }

  /**
   * Where the bank's return leads a payment of a checkout a link made (undefined: no link made it):
   * the shop's page the link names, or, when it names none, the link's own page with the receipt.
   */
  async afterBank(checkoutId: string, statusToken: string): Promise<{ shop: string } | { page: string } | undefined> {
    const use = await this.useOf(checkoutId);
    const link = use && (await this.options.links.linkByCode(use.code));
    if (!link) return undefined;
    return link.returnUrl === null ? { page: linkReceiptPath(link.code, statusToken) } : { shop: link.returnUrl };
  }

  /**
   * Whether a checkout a link made may start a payment now: not once the link was ended (a counter
   * payment cancelled, a link ended while a customer's page was open), so nothing is paid for what
   * the merchant called off. Other checkouts pass.
   */
  async admitPayment(checkout: Checkout): Promise<void> {
    const code = linkOf(checkout);
    const link = code === undefined ? undefined : await this.options.links.linkByCode(code);
    if (link?.state === 'ended') throw linkRefusalError('ended');
  }

  /** The use of a checkout, when a link made it. */
  useOf(checkoutId: string): Promise<LinkUse | undefined> {
    return this.options.links.useByCheckout(checkoutId);
  }

  /** Says that the link changed, to whoever follows it; a signal lost only delays them (they look again). */
  private changed(code: string): void {
    void this.options.changes?.publish(code).catch(() => undefined);
  }

  private reserve(link: LinkRecord, checkoutId: string, amount: string, now: number): Promise<Reservation | undefined> {
    return this.options.links.reserveUse(
      link.code,
      { checkoutId, amount, reference: (n) => referenceOf(link.reference, n) },
      now,
    );
  }
}

/** A page of a list, or a 400's error for a cursor it never gave. */
async function readable<T>(page: Promise<T>): Promise<T> {
  try {
    return await page;
  } catch (error) {
    if (error instanceof InvalidLinkCursorError) throw new InvalidInputError(error.message);
    throw error;
  }
}

const MOVED_WORD: Record<LinkMove, string> = { pause: 'paused', resume: 'resumed', end: 'ended' };

/**
 * How long a link's checkout may be paid: 30 minutes; a counter payment's only until the link expires
 * (a minute at least), so that a customer who opened it cannot start paying long after the till moved on.
 */
function checkoutTtlSeconds(link: LinkRecord, now: number): number {
  if (link.kind !== 'counter' || link.expiresAt === null) return LINK_CHECKOUT_TTL_SECONDS;
  return Math.min(LINK_CHECKOUT_TTL_SECONDS, Math.max(60, Math.ceil((link.expiresAt - now) / 1000)));
}

const isCapped = (reason: string) => reason === 'used-up' || reason === 'total-reached';

/** The link a checkout was made for (its metadata), if any. */
function linkOf(checkout: Checkout): string | undefined {
  if (checkout.metadata === null) return undefined;
  const metadata = JSON.parse(checkout.metadata) as { link?: unknown } | null;
  return typeof metadata?.link === 'string' ? metadata.link : undefined;
}
