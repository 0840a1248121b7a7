/**
 * The on-ramp's public types: its phases and the detail of its events. They live apart from the
 * element so that its parts can name them without importing it, and a page can import them from
 * kassa.js with no code.
 */
import type { MisconfigurationCode } from '../shared/misconfiguration.ts';
import type { ProxyErrorKind } from '../shared/proxy-client.ts';
import type { WalletErrorKind } from '../shared/wallet/wallet-errors.ts';
import type { PurchaseState, PurchaseView } from '../../schemas/onramp.ts';

export type { PurchaseState, PurchaseView } from '../../schemas/onramp.ts';

/**
 * What the customer sees; `phase` reflects it as an attribute for the page's own styling. From
 * `paying` on, it follows the purchase's state (`paying` is `awaiting_payment`).
 */
export type OnrampPhase =
  | 'loading'
  | 'connect'
  | 'connecting'
  | 'ready'
  | 'quoting'
  | 'signing'
  | 'creating'
  | 'paying'
  | Exclude<PurchaseState, 'awaiting_payment'>
  | 'error';

/** `kassa-onramp-status`: each new state of the purchase, the current one first (also after a reload). */
export type OnrampStatusDetail = PurchaseView;

/** `kassa-onramp-delivered`: the tokens are on the chain, in the customer's wallet. De-duplicate on `txHash`. */
export interface OnrampDeliveredDetail {
  purchaseId: string;
  /** Whole tokens, a decimal string (`"25"`). */
  amount: string;
  symbol: string;
  chainId: number;
  wallet: string;
  /** The mint's transaction on that chain. */
  txHash: string;
}

/** Where the on-ramp was when it stopped. */
export type OnrampStage = 'config' | 'connect' | 'quote' | 'sign' | 'purchase' | 'follow';

/**
 * - `unreachable`, `rate-limited`, `unavailable`, `rejected`: the Kassa proxy, as for the checkout
 *   (`status` says which refusal: 422 a bound or the wallet's limit, 400 a signature that is not the wallet's);
 * - `misconfigured`: the element's attributes;
 * - `wallet-*`: the wallet refused to connect or to sign (`wallet-rejected`: the customer said no);
 * - `message-refused`: the proxy's message is not the purchase asked for, so the wallet was not asked to sign it.
 */
export type OnrampErrorKind = ProxyErrorKind | 'misconfigured' | WalletErrorKind | 'message-refused';

/** `kassa-error` from `<kassa-onramp>`: something stopped it; `message` is for developers. */
export interface OnrampErrorDetail {
  kind: OnrampErrorKind;
  stage: OnrampStage;
  /** The proxy's HTTP status; 0 when there was no answer or no request. */
  status: number;
  message: string;
  /** Seconds until trying again makes sense, when known. */
  retryAfter?: number;
  /** The wallet's EIP-1193 code; with `misconfigured`, what the shop must change (the console names the setting too). */
  code?: number | MisconfigurationCode;
}
