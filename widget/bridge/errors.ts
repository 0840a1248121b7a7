/**
 * What can stop a transfer, in the terms the panel's messages and its `kassa-bridge-error` event
 * need. Wallet errors are read as every Kassa element reads them (shared/wallet/wallet-errors.ts).
 */
import {
  UNRECOGNIZED_CHAIN,
  walletError,
  walletErrorCode,
  walletErrorMessage,
  type WalletErrorKind,
} from '../shared/wallet/wallet-errors.ts';

/**
 * - `unreachable`, `rate-limited`, `unavailable`, `rejected`: the Kassa proxy (as for the checkout);
 * - `misconfigured`: the element's attributes; `no-chains`: the proxy lists no chain for the network;
 * - `wallet-rejected`: the user said no in the wallet (EIP-1193 4001);
 * - `wallet-unauthorized` (4100), `wallet-disconnected` (4900, 4901), `wallet-busy` (-32002, a request
 *   already open), `wallet-error`: anything else the wallet answered;
 * - `wrong-chain`: the wallet is not on the transaction's chain after switching, so nothing was sent;
 * - `insufficient-balance`, `insufficient-gas`: checked before preparing and before sending;
 * - `preview-refused`: the prepared transaction is not the transfer asked for (it never reaches the wallet);
 * - `rpc`: a chain's RPC could not be read; `reverted`: mined with status 0;
 * - `dropped`, `replaced`: the transaction left the network unmined, or another one took its nonce;
 * - `timeout`: no receipt, or no arrival, within the time allowed (the transfer may still complete).
 */
export type BridgeErrorKind =
  | 'unreachable'
  | 'rate-limited'
  | 'unavailable'
  | 'rejected'
  | 'misconfigured'
  | 'no-chains'
  | WalletErrorKind
  | 'wrong-chain'
  | 'insufficient-balance'
  | 'preview-refused'
  | 'rpc'
  | 'reverted'
  | 'dropped'
  | 'replaced'
  | 'timeout';

/** Where the transfer was when it stopped. */
export type BridgeStage =
  'chains' | 'connect' | 'balance' | 'prepare' | 'preview' | 'switch' | 'send' | 'mined' | 'arrival';

export class BridgeError extends Error {
  constructor(
    readonly kind: BridgeErrorKind,
    readonly stage: BridgeStage,
    /** For developers (English): the wallet's, the chain's or the proxy's own words. */
    message: string,
    readonly extra: { code?: number; status?: number; retryAfter?: number; chainId?: number } = {},
  ) {
    super(message);
    this.name = 'BridgeError';
  }
}

const UNKNOWN_CHAIN =
  /unrecogni[sz]ed chain|not been added|unknown chain|chain .*not (supported|configured|found)|try adding the chain/i;

/** Whether the wallet refused to switch because it does not know the chain (so it should be added). */
export function isUnknownChain(error: unknown): boolean {
  return walletErrorCode(error) === UNRECOGNIZED_CHAIN || UNKNOWN_CHAIN.test(walletErrorMessage(error));
}

/** A wallet's refusal, as a BridgeError of the right kind. */
export function fromWalletError(error: unknown, stage: BridgeStage): BridgeError {
  if (error instanceof BridgeError) return error;
  const { kind, message, code } = walletError(error);
  return new BridgeError(kind, stage, message, code === undefined ? {} : { code });
}
