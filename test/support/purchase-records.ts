import { randomBytes, randomUUID } from 'node:crypto';
import { Wallet } from 'ethers';
import { UNSTARTED_PURCHASE, type PurchaseRecord } from '../../proxy/state/purchases.ts';

const alnum = () => randomBytes(15).toString('hex').slice(0, 20);

/** A purchase as the on-ramp stores it before anything happened to it (1 eEUR on 31338, a fresh wallet). */
export const purchaseRecord = (overrides: Partial<PurchaseRecord> = {}): PurchaseRecord => ({
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
