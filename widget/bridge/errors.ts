/**
 * What can stop a transfer, in the terms the panel's messages and its `kassa-bridge-error` event
 * need. Wallet errors follow EIP-1193 (and EIP-3326/EIP-3085 for switching and adding chains);
 * wallets wrap them differently, so the code is looked for where the common wallets put it.
 */

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
  | 'wallet-rejected'
  | 'wallet-unauthorized'
  | 'wallet-disconnected'
  | 'wallet-busy'
  | 'wallet-error'
  | 'wrong-chain'
  | 'insufficient-balance'
  | 'insufficient-gas'
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

/** EIP-1193 and JSON-RPC codes the panel tells apart. */
export const USER_REJECTED = 4001;
export const UNAUTHORIZED = 4100;
export const DISCONNECTED = 4900;
export const CHAIN_DISCONNECTED = 4901;
export const UNRECOGNIZED_CHAIN = 4902;
export const REQUEST_PENDING = -32002;

interface Coded {
  code?: unknown;
  message?: unknown;
  data?: unknown;
  originalError?: unknown;
  cause?: unknown;
  error?: unknown;
}

const SPECIFIC_CODES: ReadonlySet<number> = new Set([
  USER_REJECTED,
  UNAUTHORIZED,
  4200,
  DISCONNECTED,
  CHAIN_DISCONNECTED,
  UNRECOGNIZED_CHAIN,
  REQUEST_PENDING,
]);

/** Every object inside a wallet error, outermost first (wallets nest the original under data or cause). */
function layers(error: unknown): Coded[] {
  const found: Coded[] = [];
  const queue: unknown[] = [error];
  while (queue.length && found.length < 20) {
    const current = queue.shift();
    if (!current || typeof current !== 'object' || found.includes(current)) continue;
    const coded = current as Coded;
    found.push(coded);
    const data = coded.data as Coded | undefined;
    queue.push(data?.originalError, data, coded.cause, coded.error);
  }
  return found;
}

/**
 * The EIP-1193 code of a wallet error. A wallet may wrap a specific code (4902) in a generic one
 * (-32603 with `data.originalError`), so a specific code anywhere wins over the outermost one.
 */
export function walletErrorCode(error: unknown): number | undefined {
  const codes = layers(error).flatMap((layer) => (typeof layer.code === 'number' ? [layer.code] : []));
  return codes.find((code) => SPECIFIC_CODES.has(code)) ?? codes[0];
}

/** A wallet error's message (nested ones included), for developers and for recognising a few cases by text. */
export function walletErrorMessage(error: unknown): string {
  const parts: string[] = [];
  for (const layer of layers(error))
    if (typeof layer.message === 'string' && !parts.includes(layer.message)) parts.push(layer.message);
  return (parts.length ? parts.join(': ') : String(error)).slice(0, 500);
}

const INSUFFICIENT_FUNDS =
  /insufficient funds|not enough (eth|funds|balance) for gas|gas required exceeds allowance|exceeds balance/i;
const UNKNOWN_CHAIN =
  /unrecogni[sz]ed chain|not been added|unknown chain|chain .*not (supported|configured|found)|try adding the chain/i;

/** Whether the wallet refused to switch because it does not know the chain (so it should be added). */
export function isUnknownChain(error: unknown): boolean {
  return walletErrorCode(error) === UNRECOGNIZED_CHAIN || UNKNOWN_CHAIN.test(walletErrorMessage(error));
}

/** A wallet's refusal, as a BridgeError of the right kind. */
export function fromWalletError(error: unknown, stage: BridgeStage): BridgeError {
  if (error instanceof BridgeError) return error;
  const code = walletErrorCode(error);
  const message = walletErrorMessage(error);
  const kind =
    code === USER_REJECTED
      ? 'wallet-rejected'
      : code === UNAUTHORIZED
        ? 'wallet-unauthorized'
        : code === DISCONNECTED || code === CHAIN_DISCONNECTED
          ? 'wallet-disconnected'
          : code === REQUEST_PENDING
            ? 'wallet-busy'
            : INSUFFICIENT_FUNDS.test(message)
              ? 'insufficient-gas'
              : 'wallet-error';
  return new BridgeError(kind, stage, message, code === undefined ? {} : { code });
}
