import { JsonRpcProvider, type TransactionReceipt } from 'ethers';

/**
 * An ethers provider for a chain whose id is known: no network detection round trip, no batching
 * stall (10 ms by default) and no 250 ms response cache, which would hide new blocks and balances
 * from the relayer's 100 ms polling and from readers watching for an arrival.
 */
export function chainProvider(rpcUrl: string, chainId: number): JsonRpcProvider {
  return new JsonRpcProvider(rpcUrl, chainId, { staticNetwork: true, batchMaxCount: 1, cacheTimeout: -1 });
}

const RECEIPT_POLL_MS = 10;

/**
 * The receipt of a broadcast transaction, polled directly: anvil mines on arrival, and ethers' own
 * `wait()` would poll every 4 s. Rejects after `timeoutMs`, or early once `cancelled()` says so.
 */
export async function waitForReceipt(
  provider: JsonRpcProvider,
  hash: string,
  timeoutMs: number,
  cancelled: () => boolean = () => false,
): Promise<TransactionReceipt> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const receipt = await provider.getTransactionReceipt(hash);
    if (receipt) return receipt;
    if (cancelled()) throw new Error(`stopped waiting for ${hash}`);
    if (Date.now() > deadline) throw new Error(`transaction ${hash} was not mined within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, RECEIPT_POLL_MS));
  }
}
