/**
 * The records the proxy keeps: checkouts, payment attempts (idempotency keys) and payments. The store
 * (store.ts) and its outbox (outbox.ts) both speak of them.
 */
import type { Environment } from '../../schemas/pay.ts';

export interface Checkout {
  checkoutId: string;
  amount: string;
  currencyCode: string;
  reference: string;
  /** The merchant's metadata, as JSON text. */
  metadata: string | null;
  createdAt: number;
  expiresAt: number;
  /** The idempotency key of the checkout's latest payment attempt. */
  currentAttempt: string | null;
}

/** The merchant's Idempotency-Key for creating a checkout, and what was asked under it. */
export interface CheckoutKey {
  idempotencyKey: string;
  fingerprint: string;
}

/** One browser request to pay, under its Idempotency-Key. */
export interface Attempt {
  idempotencyKey: string;
  /** What was asked, so that the same key with another request is recognised. */
  fingerprint: string;
  checkoutId: string | null;
  statusToken: string;
  state: 'pending' | 'succeeded';
  transactionId: string | null;
  createdAt: number;
}

export interface Payment {
  transactionId: string;
  statusToken: string;
  idempotencyKey: string;
  checkoutId: string | null;
  amount: string;
  currencyCode: string;
  reference: string;
  environment: Environment;
  flowUrl: string;
  status: string;
  networkStatus: string | null;
  networkPaymentId: string | null;
  paymentRail: string | null;
  providerId: string | null;
  /** The transfer's end-to-end identifier: the reference a customer quotes to their bank. */
  endToEndId: string | null;
  /** The shop's page the customer goes back to (with `kassa_status`): where the proxy's return address leads. */
  returnUrl: string | null;
  initiatedAt: string;
  updatedAt: string;
  completedAt: string | null;
  /** When the proxy recorded it (epoch ms): the order of the operator's list. */
  createdAt: number;
  /** When the proxy last read it from upstream (epoch ms). */
  lastCheckedAt: number | null;
  /** 1 when recorded, one more with each change: the `sequence` of its events. */
  revision: number;
}

/** The fields an upstream read can change (`endToEndId` fills in for payments recorded without it). */
export type PaymentUpdate = Pick<
  Payment,
  'status' | 'networkStatus' | 'networkPaymentId' | 'paymentRail' | 'providerId' | 'updatedAt' | 'completedAt'
> &
  Partial<Pick<Payment, 'endToEndId'>>;
