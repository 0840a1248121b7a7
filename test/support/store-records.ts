/** Records as the proxy makes them, fresh each time, for the store suites; `overrides` fix what a test needs. */
import { randomUUID } from 'node:crypto';
import type { DestinationRecord } from '../../proxy/state/destinations.ts';
import type { Checkout, Payment } from '../../proxy/state/store.ts';

export const checkout = (overrides: Partial<Checkout> = {}): Checkout => ({
  checkoutId: `chk_${randomUUID()}`,
  amount: '10.00',
  currencyCode: 'EUR',
  reference: 'REF',
  metadata: null,
  createdAt: Date.now(),
  expiresAt: Date.now() + 3_600_000,
  currentAttempt: null,
  ...overrides,
});

export const payment = (overrides: Partial<Payment> = {}): Payment => ({
  transactionId: randomUUID(),
  statusToken: randomUUID(),
  idempotencyKey: randomUUID(),
  checkoutId: null,
  amount: '10.00',
  currencyCode: 'EUR',
  reference: 'REF',
  environment: 'sandbox',
  flowUrl: 'http://127.0.0.1:1/flow',
  status: 'PENDING',
  networkStatus: null,
  networkPaymentId: 'NP1',
  paymentRail: null,
  providerId: null,
  endToEndId: 'E2E0123456789ABCDEF01234567',
  returnUrl: 'https://shop.example/return?order=1&kassa_status=abc',
  initiatedAt: new Date().toISOString(),
  updatedAt: new Date().toISOString(),
  completedAt: null,
  createdAt: Date.now(),
  lastCheckedAt: Date.now(),
  revision: 1,
  ...overrides,
});

/** An event destination as an admin adds it: enabled, taking every event type, with one secret. */
export const destinationRecord = (overrides: Partial<DestinationRecord> = {}): DestinationRecord => ({
  destinationId: `dest_${randomUUID()}`,
  url: 'https://hooks.example/kassa',
  description: '',
  enabledEvents: ['*'],
  secrets: [{ secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', expiresAt: null }],
  createdAt: Date.now(),
  disabledAt: null,
  disabledReason: null,
  ...overrides,
});
