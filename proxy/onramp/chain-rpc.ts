/**
 * JSON-RPC to a chain's node, for what the proxy itself must see on a chain: a contract wallet's
 * EIP-1271 answer, and the mint that delivers a purchase. Every call has a deadline and a bound on
 * the answer's size; a node that fails, stalls or answers nonsense is a ChainRpcError, never a hang.
 */
import { BodyTooLargeError, readBoundedText } from '../../server-kit/bounded-body.ts';

export class ChainRpcError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ChainRpcError';
  }
}

export interface ChainRpcOptions {
  /** The whole exchange, answer included (5 s by default). */
  timeoutMs?: number;
  /** The largest answer read (4 MB by default: a page of logs). */
  maxBytes?: number;
}

let requestId = 0;

/** One JSON-RPC call; its `result`, or a ChainRpcError that says why not. */
export async function chainCall<T>(
  rpcUrl: string,
  method: string,
  params: unknown[],
  options: ChainRpcOptions = {},
): Promise<T> {
  const signal = AbortSignal.timeout(options.timeoutMs ?? 5_000);
  let text: string;
  try {
    const response = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++requestId, method, params }),
      signal,
      redirect: 'error',
    });
    text = await readBoundedText(response, options.maxBytes ?? 4 * 1024 * 1024);
    if (!response.ok) throw new ChainRpcError(`the chain's node answered ${response.status} to ${method}`);
  } catch (error) {
    if (error instanceof ChainRpcError) throw error;
    if (error instanceof BodyTooLargeError)
      throw new ChainRpcError(`the chain's node answered ${method} with ${error.message}`);
    const timedOut = signal.aborted;
    throw new ChainRpcError(
      timedOut ? `the chain's node did not answer ${method} in time` : `the chain's node could not be reached`,
      { cause: error },
    );
  }
  let body: { result?: T; error?: { message?: string } };
  try {
    body = JSON.parse(text) as typeof body;
  } catch {
    throw new ChainRpcError(`the chain's node sent an unreadable answer to ${method}`);
  }
  if (body.error) throw new ChainRpcError(`${method} failed: ${String(body.error.message ?? 'error').slice(0, 200)}`);
  if (!('result' in body)) throw new ChainRpcError(`the chain's node sent no result for ${method}`);
  return body.result as T;
}
