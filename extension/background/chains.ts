import { chainListSchema, type ChainEntry } from '../../schemas/reforge.ts';
import { ProviderRpcError, RPC } from '../eip1193.ts';
import { operatorCall } from './operator-api.ts';
import { requireSettings } from './settings.ts';
import { KEYS, readLocal, writeLocal } from './storage.ts';

/** The proxy caches its listing for a minute too; the worker asks at most this often. */
const LISTING_TTL_MS = 30_000;
let cached: { key: string; at: number; chains: ChainEntry[] } | undefined;

/** The chains the proxy lists for the configured network (`GET /api/chains?network=`). */
export async function listChains(): Promise<ChainEntry[]> {
  const { proxyUrl, network } = await requireSettings();
  const key = `${proxyUrl} ${network}`;
  if (cached && cached.key === key && Date.now() - cached.at < LISTING_TTL_MS) return cached.chains;
  const chains = chainListSchema.parse(await operatorCall<unknown>(`/api/chains?network=${network}`));
  cached = { key, at: Date.now(), chains };
  return chains;
}

export function forgetChains(): void {
  cached = undefined;
}

/** The listing, for the wallet: without one it is on no chain it can check (4901). */
async function walletChains(): Promise<ChainEntry[]> {
  try {
    return await listChains();
  } catch (error) {
    throw new ProviderRpcError(
      RPC.chainDisconnected,
      `Kassa cannot read the chain listing from its proxy: ${(error as Error).message}`,
    );
  }
}

/**
 * The chain the wallet is on: the one chosen last, while the proxy still lists it, else the first
 * listed. Fails closed (4901) when there is no listing to check it against.
 */
export async function currentChain(): Promise<ChainEntry> {
  const chains = await walletChains();
  const chosen = await readLocal<number>(KEYS.chainId);
  const chain = chains.find((entry) => entry.chainId === chosen) ?? chains[0];
  if (!chain) throw new ProviderRpcError(RPC.chainDisconnected, 'The proxy lists no chains');
  return chain;
}

/** Moves the wallet to a listed chain; an unknown chain is 4902 (EIP-3326). */
export async function switchChain(chainId: number): Promise<ChainEntry> {
  const chains = await walletChains();
  const chain = chains.find((entry) => entry.chainId === chainId);
  if (!chain)
    throw new ProviderRpcError(
      RPC.unrecognizedChain,
      `Chain ${chainId} is not among the chains Kassa's proxy lists (${chains.map((entry) => entry.chainId).join(', ')})`,
    );
  await writeLocal(KEYS.chainId, chainId);
  return chain;
}
