/**
 * What a wallet answers when it refuses, in the terms Kassa's elements tell their users: EIP-1193
 * codes (and EIP-3326/EIP-3085 for switching and adding chains). Wallets wrap them differently, so
 * the code is looked for where the common wallets put it.
 */

/** EIP-1193 and JSON-RPC codes Kassa tells apart. */
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

/**
 * - `wallet-rejected`: the user said no in the wallet (EIP-1193 4001);
 * - `wallet-unauthorized` (4100), `wallet-disconnected` (4900, 4901), `wallet-busy` (-32002, a request
 *   already open), `insufficient-gas` (the wallet says so in words), `wallet-error`: anything else.
 */
export type WalletErrorKind =
  | 'wallet-rejected'
  | 'wallet-unauthorized'
  | 'wallet-disconnected'
  | 'wallet-busy'
  | 'insufficient-gas'
  | 'wallet-error';

/** A wallet's refusal: its kind, its EIP-1193 code, and its own words (for developers). */
export class WalletError extends Error {
  constructor(
    readonly kind: WalletErrorKind,
    message: string,
    readonly code?: number,
  ) {
    super(message);
    this.name = 'WalletError';
  }
}

/** What a wallet threw, as a WalletError of the right kind. */
export function walletError(error: unknown): WalletError {
  if (error instanceof WalletError) return error;
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
  return new WalletError(kind, message, code);
}
