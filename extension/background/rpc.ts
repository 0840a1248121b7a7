import { isHttpsOrLoopback } from '../../lib/url-rules.ts';
import type { ChainEntry } from '../../schemas/reforge.ts';
import { ProviderRpcError, RPC } from '../eip1193.ts';

const TIMEOUT_MS = 30_000;
let nextId = 1;

/**
 * The read calls a page may make through Kassa; they go to the wallet's chain's RPC URL (from the
 * proxy's listing) as they are. Anything that signs, or changes the node, is not among them.
 */
export const READ_METHODS: ReadonlySet<string> = new Set([
  'eth_blockNumber',
  'eth_call',
  'eth_estimateGas',
  'eth_feeHistory',
  'eth_gasPrice',
  'eth_getBalance',
  'eth_getBlockByHash',
  'eth_getBlockByNumber',
  'eth_getBlockTransactionCountByHash',
  'eth_getBlockTransactionCountByNumber',
  'eth_getCode',
  'eth_getLogs',
  'eth_getProof',
  'eth_getStorageAt',
  'eth_getTransactionByBlockHashAndIndex',
  'eth_getTransactionByBlockNumberAndIndex',
  'eth_getTransactionByHash',
  'eth_getTransactionCount',
  'eth_getTransactionReceipt',
  'eth_maxPriorityFeePerGas',
  'eth_syncing',
  'net_listening',
  'web3_clientVersion',
]);

/** One JSON-RPC call to a listed chain; a node's error keeps its code, message and data. */
export async function rpc(
  chain: ChainEntry,
  method: string,
  params: unknown[] | Record<string, unknown> = [],
  timeoutMs = TIMEOUT_MS,
): Promise<unknown> {
  if (!isHttpsOrLoopback(chain.rpcUrl))
    throw new ProviderRpcError(RPC.chainDisconnected, `${chain.name}'s RPC URL is not https: Kassa will not use it`);
  let response: Response;
  try {
    response = await fetch(chain.rpcUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }),
      credentials: 'omit',
      cache: 'no-store',
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    throw new ProviderRpcError(RPC.chainDisconnected, `Cannot reach ${chain.name}: ${(error as Error).message}`);
  }
  const body = (await response.json().catch(() => undefined)) as
    { result?: unknown; error?: { code?: unknown; message?: unknown; data?: unknown } } | undefined;
  if (!body)
    throw new ProviderRpcError(RPC.chainDisconnected, `${chain.name} answered HTTP ${response.status}, not JSON-RPC`);
  if (body.error) {
    const code = typeof body.error.code === 'number' ? body.error.code : RPC.internal;
    throw new ProviderRpcError(
      code,
      typeof body.error.message === 'string' ? body.error.message : 'The node refused the call',
      body.error.data,
    );
  }
  return body.result;
}
