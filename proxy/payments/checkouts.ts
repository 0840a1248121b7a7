import { createHash, randomBytes } from 'node:crypto';
import type { CheckoutView, MerchantCheckout } from '../../schemas/proxy-api.ts';
import type { Environment } from '../../schemas/pay.ts';
import { ConflictError, RefusedError } from '../domain/domain-errors.ts';
import type { Attempt, Checkout, Payment, Store } from '../state/store.ts';

export interface NewCheckout {
  amount: string;
  currencyCode: string;
  reference: string;
  metadata?: Record<string, unknown> | undefined;
  /** Chosen by the caller, for a checkout that another record names before it exists (a purchase's). */
  checkoutId?: string;
  /** How long it can be paid, when not the configured KASSA_CHECKOUT_TTL_SECONDS. */
  ttlSeconds?: number;
}

/** An unguessable checkout id: a page that has it may pay it, and nothing more. */
export const newCheckoutId = (): string => `chk_${randomBytes(18).toString('base64url')}`;

/**
 * Checkouts are how the merchant's server, not the browser, decides what is paid: a page can ask to
 * pay only what the merchant's server created. The id is unguessable: a page that has it may pay it,
 * and nothing more.
 */
export class Checkouts {
  constructor(
    private readonly store: Store,
    private readonly ttlSeconds: number,
  ) {}

  /**
   * Creates a checkout. Under an Idempotency-Key, a retry with the same request gets the checkout the
   * first one made (`replayed`); the same key with another request is refused.
   */
  async create(input: NewCheckout, idempotencyKey?: string): Promise<{ checkout: Checkout; replayed: boolean }> {
    const now = Date.now();
    const checkout: Checkout = {
      checkoutId: input.checkoutId ?? newCheckoutId(),
      amount: input.amount,
      currencyCode: input.currencyCode,
      reference: input.reference,
      metadata: input.metadata ? JSON.stringify(input.metadata) : null,
      createdAt: now,
      expiresAt: now + (input.ttlSeconds ?? this.ttlSeconds) * 1000,
      currentAttempt: null,
    };
    const fingerprint = createHash('sha256')
      .update(JSON.stringify([input.amount, input.currencyCode, input.reference, input.metadata ?? null]))
      .digest('base64url');
    const claim = await this.store.insertCheckout(
      checkout,
      idempotencyKey === undefined ? undefined : { idempotencyKey, fingerprint },
    );
    if (claim.created) return { checkout, replayed: false };
    if (claim.fingerprint !== fingerprint)
      throw new RefusedError('This Idempotency-Key was already used for a different checkout');
    const first = await this.store.getCheckout(claim.checkoutId);
    if (!first) throw new ConflictError('The checkout of this Idempotency-Key is being created; try again shortly');
    return { checkout: first, replayed: true };
  }

  get(checkoutId: string): Promise<Checkout | undefined> {
    return this.store.getCheckout(checkoutId);
  }

  /** What the customer's page may see. */
  async view(checkout: Checkout, environment: Environment, now = Date.now()): Promise<CheckoutView> {
    const { attempt, payment } = await this.latest(checkout);
    return customerView(checkout, environment, checkoutState(checkout, attempt, payment, now));
  }

  /** What the merchant's server sees: the customer's view, its metadata and the payment that settled it. */
  async merchantView(checkout: Checkout, environment: Environment, now = Date.now()): Promise<MerchantCheckout> {
    const { attempt, payment } = await this.latest(checkout);
    return merchantCheckoutView(checkout, environment, attempt, payment, now);
  }

  /** The checkout's latest payment attempt, and that attempt's payment. */
  async latest(checkout: Checkout): Promise<{ attempt?: Attempt | undefined; payment?: Payment | undefined }> {
    const attempt = checkout.currentAttempt ? await this.store.getAttempt(checkout.currentAttempt) : undefined;
    const payment = attempt?.transactionId ? await this.store.paymentById(attempt.transactionId) : undefined;
    return { attempt, payment };
  }
}

/** A checkout's state from its latest attempt and that attempt's payment. */
export function checkoutState(
  checkout: Checkout,
  attempt: Attempt | undefined,
  payment: Payment | undefined,
  now: number,
): CheckoutView['state'] {
  if (payment?.status === 'COMPLETED') return 'paid';
  if (checkout.expiresAt <= now) return 'expired';
  if (attempt?.state === 'pending' || (payment && payment.status !== 'FAILED')) return 'pending';
  return 'open';
}

const customerView = (checkout: Checkout, environment: Environment, state: CheckoutView['state']): CheckoutView => ({
  checkoutId: checkout.checkoutId,
  amount: checkout.amount,
  currencyCode: checkout.currencyCode,
  reference: checkout.reference,
  expiresAt: new Date(checkout.expiresAt).toISOString(),
  state,
  environment,
});

/** The merchant's view of a checkout; also the `data` of checkout events, built inside a store transaction. */
export function merchantCheckoutView(
  checkout: Checkout,
  environment: Environment,
  attempt: Attempt | undefined,
  payment: Payment | undefined,
  now: number,
): MerchantCheckout {
  const state = checkoutState(checkout, attempt, payment, now);
  return {
    ...customerView(checkout, environment, state),
    metadata: checkout.metadata === null ? null : (JSON.parse(checkout.metadata) as Record<string, unknown>),
    createdAt: new Date(checkout.createdAt).toISOString(),
    transactionId: payment?.transactionId ?? null,
    paidAt: state === 'paid' ? (payment?.completedAt ?? payment?.updatedAt ?? null) : null,
  };
}
