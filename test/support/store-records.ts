/** Records as the proxy makes them, fresh each time, for the store suites; `overrides` fix what a test needs. */
import { randomBytes, randomUUID } from 'node:crypto';
import type { DestinationRecord } from '../../proxy/state/destinations.ts';
import type { LinkRecord } from '../../proxy/state/links.ts';
import type { PasskeyRecord } from '../../proxy/state/operators.ts';
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

/** A link as the proxy makes one: reusable, uncapped, 10.00 EUR, unless `overrides` say otherwise. */
export const link = (overrides: Partial<LinkRecord> = {}): LinkRecord => ({
  code: randomBytes(18).toString('base64url'),
  kind: 'link',
  title: 'Lesson',
  description: '',
  currencyCode: 'EUR',
  amount: '10.00',
  minAmount: null,
  maxAmount: null,
  reference: 'LESSON-{n}',
  expiresAt: null,
  maxUses: null,
  maxTotal: null,
  language: null,
  returnUrl: null,
  state: 'active',
  createdBy: { kind: 'merchant-key', id: 'environment' },
  createdAt: Date.now(),
  updatedAt: Date.now(),
  counter: 0,
  paidUses: 0,
  paidTotal: '0',
  heldUses: 0,
  heldTotal: '0',
  lastPaidAt: null,
  ...overrides,
});

/** A person's passkey as the sign-in page registers it (its public key random: never verified here). */
export const passkeyRecord = (
  overrides: Partial<PasskeyRecord> & Pick<PasskeyRecord, 'operatorId'>,
): PasskeyRecord => ({
  credentialId: randomBytes(16).toString('base64url'),
  publicKey: randomBytes(40).toString('base64url'),
  counter: 0,
  transports: ['internal'],
  deviceType: 'multiDevice',
  backedUp: true,
  name: 'Laptop',
  createdAt: Date.now(),
  lastUsedAt: null,
  ...overrides,
});
