import { randomBytes } from 'node:crypto';
import type { Payment } from '../../proxy/state/store.ts';

/**
 * A payment as the proxy records one, for seeding a store directly (exports, searches, benchmarks):
 * the `index`th of a batch, every third COMPLETED, amounts 1.00 to 100.00, each a millisecond older.
 */
export function seededPayment(index: number, batch: string, now: number, overrides: Partial<Payment> = {}): Payment {
  const at = new Date(now - index).toISOString();
  return {
    transactionId: `seed-${batch}-${index}`,
    statusToken: `${batch}-${index}-${randomBytes(16).toString('base64url')}`,
    idempotencyKey: `seed-${batch}-${index}`,
    checkoutId: null,
    amount: `${(index % 100) + 1}.00`,
    currencyCode: 'EUR',
    reference: batch,
    environment: 'sandbox',
    flowUrl: 'http://127.0.0.1:1/flow',
    status: index % 3 === 0 ? 'COMPLETED' : 'PENDING',
    networkStatus: null,
    networkPaymentId: null,
    paymentRail: null,
    providerId: null,
    endToEndId: null,
    returnUrl: null,
    initiatedAt: at,
    updatedAt: at,
    completedAt: null,
    createdAt: now - index,
    lastCheckedAt: null,
    revision: 1,
    ...overrides,
  };
}
