import { randomBytes } from 'node:crypto';
import type { CheckoutView } from '../../schemas/proxy-api.ts';
import type { Environment } from '../../schemas/pay.ts';
import type { Checkout, Store } from '../store/store.ts';

export interface NewCheckout {
  amount: string;
  currencyCode: string;
  reference: string;
  metadata?: Record<string, unknown> | undefined;
}

/**
 * Checkouts are how the merchant's server, not the browser, decides what is paid: a page can ask to pay only what the merchant's server created.
 * The id is unguessable: a page that has it may pay it, and nothing more.
 */
export class Checkouts {
  constructor(
    private readonly store: Store,
    private readonly ttlSeconds: number,
  ) {}

  async create(input: NewCheckout): Promise<Checkout> {
    const now = Date.now();
    const checkout: Checkout = {
      checkoutId: `chk_${randomBytes(18).toString('base64url')}`,
      amount: input.amount,
      currencyCode: input.currencyCode,
      reference: input.reference,
      metadata: input.metadata ? JSON.stringify(input.metadata) : null,
      createdAt: now,
      expiresAt: now + this.ttlSeconds * 1000,
      currentAttempt: null,
    };
    await this.store.insertCheckout(checkout);
    return checkout;
  }

  get(checkoutId: string): Promise<Checkout | undefined> {
    return this.store.getCheckout(checkoutId);
  }

  async view(checkout: Checkout, environment: Environment, now = Date.now()): Promise<CheckoutView> {
    return {
      checkoutId: checkout.checkoutId,
      amount: checkout.amount,
      currencyCode: checkout.currencyCode,
      reference: checkout.reference,
      expiresAt: new Date(checkout.expiresAt).toISOString(),
      state: await this.state(checkout, now),
      environment,
    };
  }

  private async state(checkout: Checkout, now: number): Promise<CheckoutView['state']> {
    const attempt = checkout.currentAttempt ? await this.store.getAttempt(checkout.currentAttempt) : undefined;
    const payment = attempt?.transactionId ? await this.store.paymentById(attempt.transactionId) : undefined;
    if (payment?.status === 'COMPLETED') return 'paid';
    if (checkout.expiresAt <= now) return 'expired';
    if (attempt?.state === 'pending' || (payment && payment.status !== 'FAILED')) return 'pending';
    return 'open';
  }
}
