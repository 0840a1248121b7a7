/**
 * Counter mode: an operator at a till asks for one customer's payment. Each is a single-use link of
 * that amount, marked as a counter payment and made by that operator, which expires soon; the
 * customer pays it on their phone like any link, so it is an ordinary checkout and payment. The
 * counter follows it by reading the link, its use and the use's payment.
 */
import { randomBytes } from 'node:crypto';
import { compareDecimals } from '../../lib/money.ts';
import type { CounterState, NewCounterPayment } from '../../schemas/counter.ts';
import { ConflictError, InvalidInputError, NotAllowedError, NotFoundError } from '../domain/domain-errors.ts';
import type { Checkouts } from '../payments/checkouts.ts';
import type { NewLink } from '../../schemas/links.ts';
import type { LinkRecord } from '../state/links.ts';
import type { ShopTerms } from './link-terms.ts';
import type { Links } from './links.ts';

type CounterTerms = NonNullable<ShopTerms['openAmount']>;

/** Nobody can start paying a counter payment after this: the customer is at the till now or never. */
export const COUNTER_TTL_MS = 15 * 60_000;

/** Letters and digits a person reads back without doubt (no 0/O, 1/I). */
const READABLE = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';

/** A counter payment's reference: `CTR-` and 8 random readable characters, for the search and the bank statement. */
export function counterReference(): string {
  return `CTR-${[...randomBytes(8)].map((byte) => READABLE[byte % READABLE.length]).join('')}`;
}

export interface CounterProgress {
  state: CounterState;
  transactionId: string | null;
}

export interface CounterOptions {
  links: Links;
  checkouts: Checkouts;
  /** KASSA_COUNTER: the bounds and currency of what a till asks for; null: counter mode is off. */
  terms: CounterTerms | null;
}

export class Counter {
  constructor(private readonly options: CounterOptions) {}

  /** The counter's bounds and currency; counter mode off is refused. */
  terms(): CounterTerms {
    const { terms } = this.options;
    if (!terms) throw new NotAllowedError('Counter mode is off on this proxy: set KASSA_COUNTER (min..max CUR)');
    return terms;
  }

  /** A single-use link of `amount` (within KASSA_COUNTER, in its currency) that `operatorId` asks a customer to pay. */
  async ask(input: NewCounterPayment, operatorId: string, now = Date.now()): Promise<LinkRecord> {
    const { min, max, currencyCode } = this.terms();
    if (compareDecimals(input.amount, min) < 0 || compareDecimals(input.amount, max) > 0)
      throw new InvalidInputError(`amount must be from ${min} to ${max} ${currencyCode} (KASSA_COUNTER)`, {
        details: { reason: 'amount-out-of-bounds', min, max, currencyCode },
      });
    return this.options.links.create(
      {
        title: input.note,
        description: '',
        amount: input.amount,
        // KASSA_COUNTER's, which the settings took only as a currency the payment service settles.
        currencyCode: currencyCode as NewLink['currencyCode'],
        reference: counterReference(),
        expiresAt: new Date(now + COUNTER_TTL_MS).toISOString(),
        maxUses: 1,
      },
      { kind: 'operator', id: operatorId },
      'counter',
      now,
    );
  }

  /** A counter payment by its link's code; a link to share is none. */
  async get(code: string): Promise<LinkRecord> {
    const link = await this.options.links.get(code);
    if (link.kind !== 'counter') throw new NotFoundError('Unknown counter payment');
    return link;
  }

  /**
   * Where it is: paid once its payment completed (before the use is counted, which follows); a
   * payment under way or failed, as its status says; else cancelled, opened (a customer holds its
   * use), expired or still waiting.
   */
  async progress(link: LinkRecord, now = Date.now()): Promise<CounterProgress> {
    const { uses } = await this.options.links.uses(link.code, { limit: 5 });
    const paid = uses.find((use) => use.state === 'paid');
    if (paid) return { state: 'paid', transactionId: paid.transactionId };
    const held = uses.find((use) => use.state === 'held');
    const checkout = held && (await this.options.checkouts.get(held.checkoutId));
    const { payment } = checkout ? await this.options.checkouts.latest(checkout) : {};
    if (payment) {
      const transactionId = payment.transactionId;
      if (payment.status === 'COMPLETED') return { state: 'paid', transactionId };
      if (payment.status !== 'FAILED') return { state: 'authorising', transactionId };
      if (link.state !== 'ended') return { state: 'failed', transactionId };
    }
    if (link.state === 'ended') return { state: 'cancelled', transactionId: null };
    if (held) return { state: 'opened', transactionId: null };
    if (link.expiresAt !== null && link.expiresAt <= now) return { state: 'expired', transactionId: null };
    return { state: 'waiting', transactionId: null };
  }

  /**
   * Ends it: nobody can start paying it any more. A payment already under way goes on (the customer is
   * at their bank), and one paid is not undone: those are refused.
   */
  async cancel(code: string): Promise<LinkRecord> {
    const link = await this.get(code);
    const { state } = await this.progress(link);
    if (state === 'paid' || state === 'authorising')
      throw new ConflictError(`The counter payment is ${state}: it cannot be cancelled`);
    return this.options.links.move(code, 'end');
  }

  /** The checkouts made for it: the payments its counter listens for. */
  async checkoutsOf(code: string): Promise<string[]> {
    return (await this.options.links.uses(code, { limit: 5 })).uses.map((use) => use.checkoutId);
  }
}
