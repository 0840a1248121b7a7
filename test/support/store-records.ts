/** Records as the proxy makes them, fresh each time, for the store suites; `overrides` fix what a test needs. */
import { randomBytes, randomUUID } from 'node:crypto';
import { Wallet } from 'ethers';
import { UNSTARTED_PURCHASE, type PurchaseRecord, type QuoteRecord } from '../../proxy/state/purchases.ts';
import type { Checkout, Payment } from '../../proxy/state/store.ts';

const alnum = () => randomBytes(15).toString('hex').slice(0, 20);

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

export const quote = (overrides: Partial<QuoteRecord> = {}): QuoteRecord => ({
  quoteId: `quo_${alnum()}`,
  wallet: Wallet.createRandom().address,
  chainId: 31338,
  chainName: 'Kassa Local Two',
  symbol: 'eEUR',
  tokens: '25',
  tokensCents: 2500,
  currencyCode: 'EUR',
  paymentAmount: '25.00',
  fee: '0.00',
  message: 'shop.example wants you to sign in…',
  createdAt: Date.now(),
  expiresAt: Date.now() + 600_000,
  ...overrides,
});

export const purchase = (overrides: Partial<PurchaseRecord> = {}): PurchaseRecord => ({
  purchaseId: `pur_${alnum()}`,
  purchaseToken: randomBytes(32).toString('base64url'),
  quoteId: `quo_${alnum()}`,
  wallet: Wallet.createRandom().address,
  chainId: 31338,
  chainName: 'Kassa Local Two',
  symbol: 'eEUR',
  tokens: '1',
  tokensCents: 100,
  currencyCode: 'EUR',
  paymentAmount: '1.00',
  fee: '0.00',
  checkoutId: `chk_${randomUUID()}`,
  ...UNSTARTED_PURCHASE,
  createdAt: Date.now(),
  updatedAt: Date.now(),
  ...overrides,
});
