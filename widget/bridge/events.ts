/**
 * The wallet panel's public types: its phases and the detail of each `kassa-bridge-*` event. They
 * live apart from the element so that its parts (the transfer store, the controllers) can name them
 * without importing the element, and a page can import them from kassa.js with no code.
 */
import type { BridgeErrorKind, BridgeStage } from './errors.ts';
import type { MisconfigurationCode } from '../shared/misconfiguration.ts';

export type { BridgeErrorKind, BridgeStage } from './errors.ts';

/** How long each step may take before the panel says so (milliseconds). */
export interface BridgeTimeouts {
  /** From sending until the receipt. */
  mined: number;
  /** How long the source chain may not know the transaction at all before it counts as dropped. */
  dropped: number;
  /** From the receipt until the panel calls the transfer delayed (and says what the user can do); it follows on. */
  delayed: number;
  /** From the receipt until the tokens arrive on the destination chain. */
  arrival: number;
}

/** What the user sees; `phase` reflects it as an attribute for the page's own styling. */
export type BridgePhase =
  | 'loading'
  | 'connect'
  | 'connecting'
  | 'ready'
  | 'preparing'
  | 'review'
  | 'switching'
  | 'signing'
  | 'submitted'
  | 'mined'
  | 'delayed'
  | 'arrived'
  | 'refunded'
  | 'failed'
  | 'error';

/** A transfer, as every `kassa-bridge-*` event of it names it. */
export interface BridgeTransferDetail {
  /** The burn transaction on the source chain (after a wallet's speed-up, the new one). */
  hash: string;
  /** The account that signed; the tokens arrive at the same address. */
  from: string;
  sourceChainId: number;
  destinationChainId: number;
  symbol: string;
  /** Whole tokens, a decimal string (`"12.5"`). */
  amount: string;
}

/** `kassa-bridge-submitted`: the wallet signed and broadcast the transfer. */
export type BridgeSubmittedDetail = BridgeTransferDetail;

/** `kassa-bridge-mined`: the burn is in a block of the source chain. */
export interface BridgeMinedDetail extends BridgeTransferDetail {
  blockNumber: number;
  /** The burn's id: the destination chain's mint carries it (`ReforgeMint`). */
  burnId: string;
}

/** `kassa-bridge-arrived`: the tokens were minted to the same address on the destination chain. */
export interface BridgeArrivedDetail extends BridgeTransferDetail {
  burnId: string;
  /** The mint transaction on the destination chain, and its block. */
  destinationHash: string;
  destinationBlock: number;
  /** The account's balance of the token on the destination chain now, whole tokens. */
  balance: string;
}

/** `kassa-bridge-delayed`: mined, but not arrived in the time a transfer usually takes; the panel follows on. */
export interface BridgeDelayedDetail extends BridgeTransferDetail {
  burnId: string;
  /** Milliseconds since the transfer was sent. */
  waited: number;
}

/** `kassa-bridge-refunded`: the bridge could not deliver and minted the tokens back on the source chain, under the same burn id. */
export interface BridgeRefundedDetail extends BridgeTransferDetail {
  burnId: string;
  /** The refund transaction on the source chain, and its block. */
  refundHash: string;
  refundBlock: number;
  /** The account's balance of the token on the source chain now, whole tokens. */
  balance: string;
}

/** `kassa-bridge-error`: something stopped the panel or the transfer; `message` is for developers. */
export interface BridgeErrorDetail {
  kind: BridgeErrorKind;
  stage: BridgeStage;
  message: string;
  /** The wallet's EIP-1193 code, or the RPC's error code; with `misconfigured`, what the shop must change (the console names the setting too). */
  code?: number | MisconfigurationCode;
  /** The proxy's HTTP status, when the proxy answered. */
  status?: number;
  retryAfter?: number;
  /** The transfer's transaction, once there is one. */
  hash?: string;
}
