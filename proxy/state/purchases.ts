/**
 * The on-ramp's records: quotes (the message a wallet signs, and its price) and purchases (a paid
 * checkout that becomes a mint on the customer's chain). Every backend keeps them beside the
 * checkouts and payments they refer to, and writes a purchase's events to the outbox in the same
 * transaction as its change. Every store implements it alike (sql/purchases.ts for SQLite and
 * PostgreSQL, redis/purchases.ts).
 */
import type { PurchaseState } from '../../schemas/onramp.ts';
import { decodePosition, InvalidCursorError, pageAfter, type Page } from './cursors.ts';
import type { NewEvent } from './outbox.ts';

export interface QuoteRecord {
  quoteId: string;
  wallet: string;
  chainId: number;
  chainName: string;
  symbol: string;
  /** Whole tokens as the customer asked (`"25"`), and in hundredths (2500). */
  tokens: string;
  tokensCents: number;
  currencyCode: string;
  /** What is paid, fee included, and the fee (`"25.50"`, `"0.50"`). */
  paymentAmount: string;
  fee: string;
  /** The EIP-4361 text the wallet signs. */
  message: string;
  /** Epoch ms. */
  createdAt: number;
  expiresAt: number;
}

/** What a purchase takes from its quote, as quoted. */
export type QuotedTerms = Omit<QuoteRecord, 'message' | 'createdAt' | 'expiresAt'>;

export interface PurchaseRecord extends QuotedTerms {
  purchaseId: string;
  /** The capability to read the purchase (the customer's link). */
  purchaseToken: string;
  checkoutId: string;
  state: PurchaseState;
  /** Epoch ms. */
  createdAt: number;
  updatedAt: number;
  paidAt: number | null;
  deliveredAt: number | null;
  /** The payment that paid it. */
  transactionId: string | null;
  /** The current mint order: its id, `customerOrder`, last status read and when it was made. */
  orderId: string | null;
  customerOrder: string | null;
  orderStatus: string | null;
  orderCreatedAt: number | null;
  /** Orders made for it: 1 normally, one more for each "Retry the mint". */
  orderAttempts: number;
  /**
   * Every order made for it, oldest first, the current one last: the mint of any of them is its
   * delivery (a late mint of an earlier order too), and no other mint is.
   */
  orderIds: readonly string[];
  /** When the worker is next due to look at it (paid, minting, delayed); null: as soon as it can. */
  nextLookAt: number | null;
  /** The chain's block when the current order was made: the mint is looked for from there. */
  fromBlock: number | null;
  txHash: string | null;
  blockNumber: number | null;
  delayedReason: string | null;
  /** Bumped by every change: the `sequence` of its events. */
  revision: number;
}

/** A purchase before anything has happened to it: no payment, no order, nothing on a chain. */
export const UNSTARTED_PURCHASE = {
  state: 'awaiting_payment',
  paidAt: null,
  deliveredAt: null,
  transactionId: null,
  orderId: null,
  customerOrder: null,
  orderStatus: null,
  orderCreatedAt: null,
  orderAttempts: 0,
  orderIds: [],
  nextLookAt: null,
  fromBlock: null,
  txHash: null,
  blockNumber: null,
  delayedReason: null,
  revision: 1,
} as const satisfies Partial<PurchaseRecord>;

export interface PurchaseAuditRecord {
  action: 'retry-mint' | 'refund';
  note: string | null;
  /** Epoch ms. */
  at: number;
  previousState: PurchaseState;
  state: PurchaseState;
  requestId: string | null;
}

export type CreatePurchaseOutcome =
  | { outcome: 'created' }
  /** The same quote and Idempotency-Key again: the purchase it made. */
  | { outcome: 'replay'; purchase: PurchaseRecord }
  | { outcome: 'quote-used' }
  | { outcome: 'limit'; usedCents: number };

/** A change to a purchase; `txHash` must not be another purchase's. */
export type PurchaseChange = Partial<
  Omit<PurchaseRecord, 'purchaseId' | 'purchaseToken' | 'quoteId' | 'checkoutId' | 'createdAt' | 'revision'>
>;

/**
 * What an update expects to find: the purchase in one of `states` and, for an actor acting on what it
 * read, still at the `revision` it read and on the order it acted on. A stale actor (one that read
 * before someone else changed the purchase) then never applies its change.
 */
export interface PurchaseExpectation {
  states: readonly PurchaseState[];
  revision?: number;
  orderId?: string | null;
}

export const meetsExpectation = (current: PurchaseRecord, expected: PurchaseExpectation): boolean =>
  expected.states.includes(current.state) &&
  (expected.revision === undefined || current.revision === expected.revision) &&
  (expected.orderId === undefined || current.orderId === expected.orderId);

/** The states in which the worker has something to do: order the mint, or look for it. */
export const WORK_STATES: readonly PurchaseState[] = ['paid', 'minting', 'delayed'];

/** When a purchase's work is due (its next look, or now); null for a purchase with nothing to do. */
export const dueAt = (purchase: Pick<PurchaseRecord, 'state' | 'nextLookAt'>): number | null =>
  WORK_STATES.includes(purchase.state) ? (purchase.nextLookAt ?? 0) : null;

export type PurchaseUpdateOutcome =
  | { outcome: 'updated'; purchase: PurchaseRecord }
  /** Not as expected (another state, revision or order), or gone: someone else moved it first. */
  | { outcome: 'moved'; purchase: PurchaseRecord | undefined }
  /** The transaction hash belongs to another purchase. */
  | { outcome: 'tx-taken' };

export type PurchasePage = Page<'purchases', PurchaseRecord>;

/** Purchases that count against a wallet's limit: every one but those that took no money or gave it back. */
export const COUNTS_AGAINST_LIMIT = (state: PurchaseState): boolean => state !== 'failed' && state !== 'refunded';

export interface PurchaseStore {
  saveQuote(quote: QuoteRecord): Promise<void>;
  getQuote(quoteId: string): Promise<QuoteRecord | undefined>;
  /** Forgets quotes that expired before `before` (used or not: a used one lives on in its purchase). */
  forgetQuotes(before: number): Promise<void>;
  /**
   * Atomically, fleet-wide: uses the quote (once), checks the wallet's purchases of the coin since
   * `windowStart` against `limitCents` with this one added, and stores the purchase. Under the same
   * Idempotency-Key a used quote answers the purchase it made.
   */
  create(input: {
    purchase: PurchaseRecord;
    idempotencyKey: string | null;
    limitCents: number | null;
    windowStart: number;
  }): Promise<CreatePurchaseOutcome>;
  /** Hundredths of a coin the wallet bought since `since` (purchases that count against the limit). */
  usedByWallet(wallet: string, symbol: string, since: number): Promise<number>;
  byId(purchaseId: string): Promise<PurchaseRecord | undefined>;
  byToken(purchaseToken: string): Promise<PurchaseRecord | undefined>;
  byCheckout(checkoutId: string): Promise<PurchaseRecord | undefined>;
  /** Newest first. */
  list(query: {
    state?: PurchaseState | undefined;
    wallet?: string | undefined;
    limit: number;
    cursor?: string | undefined;
  }): Promise<PurchasePage>;
  /** Purchases in these states (none of them final), oldest first. */
  unsettled(states: readonly PurchaseState[], limit: number): Promise<PurchaseRecord[]>;
  /**
   * Purchases whose work is due by `now` (`dueAt`: paid ones, and minting or delayed ones due a
   * look), soonest first, however many are awaiting payment: what the worker sweeps first.
   */
  due(now: number, limit: number): Promise<PurchaseRecord[]>;
  /**
   * Applies `change` if the purchase is as `expected`, bumping its revision; the events `events`
   * gives for the changed purchase, and the audit entry, are written in the same transaction.
   */
  update(
    purchaseId: string,
    expected: PurchaseExpectation,
    change: PurchaseChange,
    effects?: { events?: (next: PurchaseRecord) => NewEvent[]; audit?: PurchaseAuditRecord },
  ): Promise<PurchaseUpdateOutcome>;
  /** Takes the purchase's work lease until `now + leaseMs` (one instance at a time); false when another holds it. */
  lease(purchaseId: string, holder: string, now: number, leaseMs: number): Promise<boolean>;
  /** Gives the lease up, if `holder` still holds it. */
  unlease(purchaseId: string, holder: string): Promise<void>;
  /** Who holds the purchase's lease at `now`; null when no one does (never taken, given up, or run out). */
  leaseHolder(purchaseId: string, now: number): Promise<string | null>;
  audit(purchaseId: string): Promise<PurchaseAuditRecord[]>;
}

export class InvalidPurchaseCursorError extends InvalidCursorError {}

/** A page of a list read `limit + 1` deep; its cursor, the position (createdAt, purchaseId) of the last purchase. */
export function purchasePage(found: PurchaseRecord[], limit: number): PurchasePage {
  const { items, nextCursor } = pageAfter(found, limit, false, (last) => [last.createdAt, last.purchaseId]);
  return { purchases: items, nextCursor };
}

export function decodePurchaseCursor(cursor: string): { createdAt: number; purchaseId: string } {
  const [createdAt, purchaseId] = decodePosition(cursor, 'pur_[A-Za-z0-9_-]{1,64}', InvalidPurchaseCursorError);
  return { createdAt, purchaseId };
}
