/**
 * Everything the proxy must not lose: checkouts, payment attempts (idempotency keys), payments and
 * received webhook events. SQLite is the embedded default (sqlite/); PostgreSQL (postgres/)
 * or Redis (redis/) serves a fleet. All implement this interface and pass the same test suite.
 */
import { compareDecimals } from '../../lib/money.ts';
import { isTerminalStatus } from '../../schemas/pay.ts';
import type { ApprovalStore } from './approvals.ts';
import type { AuditStore } from './audit.ts';
import { decodePosition, encodePosition, type Page } from './cursors.ts';
import type { OperatorStore } from './operators.ts';
import type { DestinationStore } from './destinations.ts';
import type { LinkStore } from './links.ts';
import type { MerchantKeyStore } from './merchant-keys.ts';
import type { Outbox, PaymentEventRule } from './outbox.ts';
import type { PurchaseStore } from './purchases.ts';
import type { Reconciliation } from './reconciliation.ts';
import type { Attempt, Payment, PaymentUpdate, Checkout, CheckoutKey } from './records.ts';

// The records live apart so that the outbox and the store can both name them; the store's users take them from here.
export type { Attempt, Checkout, CheckoutKey, Payment, PaymentUpdate } from './records.ts';

export type CheckoutClaim = { created: true } | { created: false; checkoutId: string; fingerprint: string };

/** How long a checkout's Idempotency-Key is remembered (at least the 24 h a retrying server needs). */
export const CHECKOUT_KEY_KEPT_MS = 7 * 24 * 3_600_000;

export type BeginAttempt =
  /** The key is new and, for a checkout, the checkout is free: go ahead and initiate. */
  | { outcome: 'started' }
  /** The key was used before: the caller compares fingerprints and answers as before. */
  | { outcome: 'replay'; attempt: Attempt }
  /** Another key's attempt holds the checkout: in flight, or its payment is live. */
  | { outcome: 'checkout-taken'; attempt: Attempt }
  | { outcome: 'checkout-paid' };

/** The operator's search: all optional but `limit`. Times are epoch ms; amounts decimal strings. */
export interface PaymentSearch {
  status?: string | undefined;
  checkoutId?: string | undefined;
  reference?: string | undefined;
  from?: number | undefined;
  to?: number | undefined;
  minAmount?: string | undefined;
  maxAmount?: string | undefined;
  limit: number;
  cursor?: string | undefined;
}

/** Whether a payment passes the filters a store could not apply through an index. */
export function matchesSearch(payment: Payment, search: PaymentSearch): boolean {
  return (
    (!search.status || payment.status === search.status) &&
    (!search.checkoutId || payment.checkoutId === search.checkoutId) &&
    (!search.reference || payment.reference === search.reference) &&
    (search.from === undefined || payment.createdAt >= search.from) &&
    (search.to === undefined || payment.createdAt < search.to) &&
    (!search.minAmount || compareDecimals(payment.amount, search.minAmount) >= 0) &&
    (!search.maxAmount || compareDecimals(payment.amount, search.maxAmount) <= 0)
  );
}

/** Upper bounds (ms) of the age buckets of payments not yet final; the last bucket is everything older. */
export const PENDING_AGE_BUCKETS = [
  { label: 'under_1m', below: 60_000 },
  { label: '1m_15m', below: 900_000 },
  { label: '15m_1h', below: 3_600_000 },
  { label: '1h_1d', below: 86_400_000 },
  { label: 'over_1d', below: Infinity },
] as const;

export interface PaymentStats {
  byStatus: Record<string, number>;
  pendingByAge: Record<(typeof PENDING_AGE_BUCKETS)[number]['label'], number>;
}

export type PaymentPage = Page<'payments', Payment>;

export interface Store {
  /**
   * Stores a new checkout. Under an Idempotency-Key, atomically: a key seen before leaves the store as
   * it is and names the checkout it made, so a retried request never makes a second one.
   */
  insertCheckout(checkout: Checkout, key?: CheckoutKey): Promise<CheckoutClaim>;
  getCheckout(checkoutId: string): Promise<Checkout | undefined>;

  /**
   * Claims an idempotency key and, for a checkout, the checkout itself, in one atomic step. An attempt
   * still pending after `staleAfterMs` belonged to a process that died mid-request and is discarded.
   */
  beginAttempt(
    input: Pick<Attempt, 'idempotencyKey' | 'fingerprint' | 'checkoutId' | 'statusToken'> & {
      now: number;
      staleAfterMs: number;
    },
  ): Promise<BeginAttempt>;
  getAttempt(idempotencyKey: string): Promise<Attempt | undefined>;
  /** Forgets a pending attempt that produced no payment, freeing its key and its checkout. */
  abandonAttempt(idempotencyKey: string): Promise<void>;
  /** Stores the payment and marks its attempt succeeded, atomically. */
  recordPayment(payment: Payment): Promise<void>;

  paymentByToken(statusToken: string): Promise<Payment | undefined>;
  paymentById(transactionId: string): Promise<Payment | undefined>;
  /**
   * Applies what upstream says now. A final status never changes again. Returns the payment when
   * something a customer can see changed, undefined otherwise; `lastCheckedAt` is set either way.
   * The events `rule` gives for a change are written to the outbox in the same transaction.
   */
  applyUpdate(
    transactionId: string,
    update: PaymentUpdate,
    checkedAt: number,
    rule?: PaymentEventRule,
  ): Promise<Payment | undefined>;
  markChecked(transactionId: string, checkedAt: number): Promise<void>;
  /** Newest first; every filter given must hold. */
  listPayments(query: PaymentSearch): Promise<PaymentPage>;
  /** How many payments are in each status, and how old the ones not yet final are (for /metrics). */
  paymentStats(now: number): Promise<PaymentStats>;
  /** Payments not yet final, oldest first. */
  pendingPayments(limit: number): Promise<Payment[]>;

  /** Records a webhook delivery; false when the same delivery was seen before. */
  recordWebhook(event: {
    dedupeKey: string;
    transactionId: string | null;
    receivedAt: number;
    body: string;
  }): Promise<boolean>;

  /** The merchant's events, in the same store as the changes that cause them. */
  readonly outbox: Outbox;
  /** The event destinations added through the API, each with its queue (destinations.ts). */
  readonly destinations: DestinationStore;
  /** The merchant's API keys (merchant-keys.ts). */
  readonly merchantKeys: MerchantKeyStore;
  /** Payment links and their uses (links.ts). */
  readonly links: LinkStore;
  /** Re-reads owed, payments that cannot be verified, and the operator's resolutions. */
  readonly reconciliation: Reconciliation;
  /** The on-ramp's quotes and purchases, beside the checkouts they are paid through. */
  readonly purchases: PurchaseStore;
  /** The merchant's operators: accounts, credentials, passkeys, device sign-ins. */
  readonly operators: OperatorStore;
  /** Money actions waiting for a second person. */
  readonly approvals: ApprovalStore;
  /** Who did what: the hash-chained audit trail. */
  readonly audit: AuditStore;

  /** Throws when the store cannot serve requests. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The rule of `beginAttempt`, shared by every store: given what the key and the checkout hold now,
 * answer as before, leave the checkout to its live attempt, or start (discarding a stale attempt).
 */
export function decideAttempt(input: {
  existing: Attempt | undefined;
  /** The checkout's current attempt, and the status of its payment if it has one. */
  current: Attempt | undefined;
  currentStatus: string | undefined;
  now: number;
  staleAfterMs: number;
}):
  | Exclude<BeginAttempt, { outcome: 'started' }>
  | { outcome: 'started'; discardCurrent: boolean; discardExisting: boolean } {
  const { existing, current, currentStatus } = input;
  const stale = (attempt: Attempt) =>
    attempt.state === 'pending' && attempt.createdAt <= input.now - input.staleAfterMs;
  // A key whose attempt is still pending long after any initiate could take belonged to a process that
  // died mid-request: it is released, so the customer's retry with that key goes ahead.
  const discardExisting = !!existing && stale(existing);
  if (existing && !discardExisting) return { outcome: 'replay', attempt: existing };
  if (current?.state === 'pending') {
    if (!stale(current)) return { outcome: 'checkout-taken', attempt: current };
    return { outcome: 'started', discardCurrent: true, discardExisting };
  }
  if (current && currentStatus === 'COMPLETED') return { outcome: 'checkout-paid' };
  if (current && currentStatus !== undefined && !isTerminalStatus(currentStatus))
    return { outcome: 'checkout-taken', attempt: current };
  return { outcome: 'started', discardCurrent: false, discardExisting };
}

/** The store cannot be reached (Redis down, disk failing): requests get 503, nothing half-written. */
export class StoreUnavailableError extends Error {
  constructor(cause: unknown) {
    super(`the store is unavailable: ${cause instanceof Error ? cause.message : String(cause)}`, { cause });
    this.name = 'StoreUnavailableError';
  }
}

export { InvalidCursorError } from './cursors.ts';

/** Cursors of the payments: the position (createdAt, transactionId) of the last item seen. */
export const encodeCursor = (payment: Pick<Payment, 'createdAt' | 'transactionId'>): string =>
  encodePosition(payment.createdAt, payment.transactionId);

export function decodeCursor(cursor: string): { createdAt: number; transactionId: string } {
  const [createdAt, transactionId] = decodePosition(cursor, '[A-Za-z0-9-]{1,100}');
  return { createdAt, transactionId };
}

/**
 * The merge rule every store applies: a final status is never overwritten (no wrong status from a
 * late or forged read), and only fields a customer or operator can see count as a change.
 */
export function mergeUpdate(current: Payment, update: PaymentUpdate): Payment | undefined {
  if (isTerminalStatus(current.status)) return undefined;
  const next: Payment = {
    ...current,
    ...update,
    endToEndId: update.endToEndId ?? current.endToEndId,
    revision: current.revision + 1,
  };
  const visible: Array<keyof PaymentUpdate> = [
    'status',
    'networkStatus',
    'paymentRail',
    'providerId',
    'completedAt',
    'networkPaymentId',
  ];
  return visible.some((field) => current[field] !== next[field]) ? next : undefined;
}
