/**
 * EIP-1193 errors as Kassa's provider answers them. Codes from EIP-1193 (4001–4901), EIP-3326 (4902)
 * and JSON-RPC 2.0 (-326xx). Used by the service worker (which decides) and the page's provider
 * (which throws them), so both name codes the same way.
 */
export const RPC = {
  /** The user rejected the request, or closed the approval window. */
  userRejected: 4001,
  /** Not authorised: the origin is not connected, the wallet is locked or has no key. */
  unauthorized: 4100,
  /** The method, or this use of it, is not supported: Kassa signs only Kassa transfers. */
  unsupported: 4200,
  /** The provider cannot reach Kassa at all (extension reloaded, service worker gone). */
  disconnected: 4900,
  /** The wallet's chain cannot be reached or is no longer offered. */
  chainDisconnected: 4901,
  /** wallet_switchEthereumChain to a chain Kassa does not know. */
  unrecognizedChain: 4902,
  /** A request of the same kind from the site already waits for the user (as MetaMask answers). */
  alreadyPending: -32002,
  methodNotFound: -32601,
  invalidParams: -32602,
  internal: -32603,
} as const;

export interface RpcErrorJson {
  code: number;
  message: string;
  data?: unknown;
}

/** An error the provider answers with `{code, message, data?}`. */
export class ProviderRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'ProviderRpcError';
  }

  toJSON(): RpcErrorJson {
    return this.data === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, data: this.data };
  }
}

/** Any thrown value as the JSON error a page receives; unexpected errors become -32603 with their message. */
export function toRpcError(error: unknown): RpcErrorJson {
  if (error instanceof ProviderRpcError) return error.toJSON();
  return { code: RPC.internal, message: error instanceof Error ? error.message : String(error) };
}
