import type { OperatorPayment, PaymentStatusView } from '../../schemas/proxy-api.ts';
import type { Checkout, Payment, Store } from '../state/store.ts';
import { bankName } from './bank-names.ts';

/**
 * What a customer sees of their payment. `retryable`: it failed, and a new attempt may be made: an
 * open-amount payment always; a checkout's while the checkout is open to one (not expired, and no
 * newer attempt has taken over).
 */
export function statusView(payment: Payment, checkout: Checkout | undefined, now = Date.now()): PaymentStatusView {
  return {
    transactionId: payment.transactionId,
    status: payment.status,
    networkStatus: payment.networkStatus,
    amount: payment.amount,
    currencyCode: payment.currencyCode,
    reference: payment.reference,
    environment: payment.environment,
    checkoutId: payment.checkoutId,
    retryable:
      payment.status === 'FAILED' &&
      (payment.checkoutId === null ||
        (!!checkout && checkout.expiresAt > now && checkout.currentAttempt === payment.idempotencyKey)),
    initiatedAt: payment.initiatedAt,
    updatedAt: payment.updatedAt,
    completedAt: payment.completedAt,
    providerId: payment.providerId,
    bankName: bankName(payment.providerId),
    networkPaymentId: payment.networkPaymentId,
    endToEndId: payment.endToEndId,
  };
}

/** What the operator (and the merchant's payment events) see of a payment. */
export function operatorView(payment: Payment, checkout: Checkout | undefined, now = Date.now()): OperatorPayment {
  return {
    ...statusView(payment, checkout, now),
    networkPaymentId: payment.networkPaymentId,
    paymentRail: payment.paymentRail,
    providerId: payment.providerId,
    lastCheckedAt: payment.lastCheckedAt === null ? null : new Date(payment.lastCheckedAt).toISOString(),
  };
}

/** The operator's views of several payments, each checkout read once however many payments share it. */
export async function operatorViews(store: Store, payments: readonly Payment[]): Promise<OperatorPayment[]> {
  const ids = [...new Set(payments.flatMap((payment) => (payment.checkoutId ? [payment.checkoutId] : [])))];
  const checkouts = new Map(await Promise.all(ids.map(async (id) => [id, await store.getCheckout(id)] as const)));
  const now = Date.now();
  return payments.map((payment) =>
    operatorView(payment, payment.checkoutId ? checkouts.get(payment.checkoutId) : undefined, now),
  );
}
