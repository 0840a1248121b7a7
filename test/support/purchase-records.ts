import { randomBytes, randomUUID } from 'node:crypto';
import { Wallet } from 'ethers';
import { UNSTARTED_PURCHASE, type PurchaseRecord, type QuoteRecord } from '../../proxy/state/purchases.ts';

const alnum = () => randomBytes(15).toString('hex').slice(0, 20);

/** What a quote and a purchase both name: eEUR on 31338 for a fresh wallet, paid in euros with no fee. */
const offer = (tokensCents: number) => ({
  wallet: Wallet.createRandom().address,
  chainId: 31338,
  chainName: 'Kassa Local Two',
  symbol: 'eEUR',
  tokens: String(tokensCents / 100),
  tokensCents,
  currencyCode: 'EUR',
  paymentAmount: (tokensCents / 100).toFixed(2),
  fee: '0.00',
});

/** A purchase as the on-ramp stores it before anything happened to it (1 eEUR on 31338, a fresh wallet). */
export const purchaseRecord = (overrides: Partial<PurchaseRecord> = {}): PurchaseRecord => ({
  purchaseId: `pur_${alnum()}`,
  purchaseToken: randomBytes(32).toString('base64url'),
  quoteId: `quo_${alnum()}`,
  ...offer(100),
  checkoutId: `chk_${randomUUID()}`,
  ...UNSTARTED_PURCHASE,
  createdAt: Date.now(),
  updatedAt: Date.now(),
  ...overrides,
});

/** A quote of 25 eEUR on 31338 for a fresh wallet, as the on-ramp keeps it until it is used or expires. */
export const quoteRecord = (overrides: Partial<QuoteRecord> = {}): QuoteRecord => ({
  quoteId: `quo_${alnum()}`,
  ...offer(2500),
  message: 'shop.example wants you to sign in…',
  createdAt: Date.now(),
  expiresAt: Date.now() + 600_000,
  ...overrides,
});
