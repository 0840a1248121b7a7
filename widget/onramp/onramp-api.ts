/**
 * The proxy's on-ramp routes as the element reads them (docs/onramp.md, proxy/routes/onramp-routes.ts):
 * types only, so the chunk carries no schema code.
 */
import type { ChainEntry } from '../../schemas/reforge.ts';

export type PurchaseState =
  | 'awaiting_payment'
  | 'paid'
  | 'minting'
  | 'delivered'
  | 'delayed'
  | 'failed'
  | 'refunded';

/** `GET /api/onramp/config`: what may be bought, where, within which bounds, and the merchant's fee. */
export interface OnrampConfig {
  coins: Array<{ currencyCode: string; symbol: string }>;
  /** The merchant's fee, added to the payment: a percentage of the tokens and a fixed amount (decimal strings). */
  fee: { percent: string; fixed: string };
  /** Whole tokens per purchase, decimal strings. */
  min: string;
  max: string;
  /** Tokens a wallet may buy of one coin over 24 hours; null: no limit. */
  walletLimit: string | null;
  /** The chains the coins are minted on, their tokens filtered to the configured coins. */
  chains: ChainEntry[];
  environment: 'sandbox' | 'live';
}

export interface QuoteRequest {
  wallet: string;
  chainId: number;
  symbol: string;
  /** Whole tokens, a decimal string. */
  amount: string;
}

/** `POST /api/onramp/quotes`: the message the wallet signs, and what the purchase will be. */
export interface Quote {
  quoteId: string;
  /** EIP-4361 text (lib/siwe.ts). */
  message: string;
  expiresAt: string;
  tokens: { amount: string; symbol: string; chainId: number };
  payment: { amount: string; currencyCode: string };
  fee: string;
}

/** A purchase as the customer's browser sees it. */
export interface PurchaseView {
  purchaseId: string;
  state: PurchaseState;
  symbol: string;
  /** Whole tokens, a decimal string. */
  amount: string;
  chainId: number;
  chainName: string;
  wallet: string;
  payment: {
    amount: string;
    currencyCode: string;
    fee: string;
    status: string | null;
    statusToken: string | null;
  };
  checkoutId: string;
  txHash: string | null;
  blockNumber: number | null;
  explorerUrl: string | null;
  createdAt: string;
  updatedAt: string;
  deliveredAt: string | null;
}

/** `POST /api/onramp/purchases`: the purchase, the capability to read it, and the checkout to pay. */
export interface CreatedPurchase {
  purchase: PurchaseView;
  purchaseToken: string;
  checkoutId: string;
}
