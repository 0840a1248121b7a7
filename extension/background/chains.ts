import { chainListSchema, type ChainEntry } from '../../schemas/reforge.ts';
import { ProviderRpcError, RPC } from '../eip1193.ts';
import { requireProxy } from './settings.ts';
import { KEYS, readLocal, writeLocal } from './storage.ts';

/** The proxy caches its listing for a minute too; the worker asks at most this often. */
const LISTING_TTL_MS = 30_000;
const TIMEOUT_MS = 20_000;
let cached: { key: string; at: number; chains: ChainEntry[] } | undefined;

/**
 * The chains the proxy lists for the configured network, from its public route (`GET
 * /api/bridge/chains?network=`, the wallet panel's): the wallet needs no operator token, and never
 * sends one. No credentials, no cookies.
 */
export async function listChains(): Promise<ChainEntry[]> {
  const { proxyUrl, network } = await requireProxy();
  const key = `${proxyUrl} ${network}`;
  if (cached && cached.key === key && Date.now() - cached.at < LISTING_TTL_MS) return cached.chains;
  let response: Response;
  try {
    response = await fetch(`${proxyUrl}/api/bridge/chains?network=${network}`, {
      headers: { Accept: 'application/json' },
      cache: 'no-store',
      credentials: 'omit',
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (error) {
    throw new Error(`Cannot reach the proxy at ${proxyUrl}: ${(error as Error).message}`);
  }
  if (!response.ok) throw new Error(`The proxy answered HTTP ${response.status} for its chain listing`);
  const parsed = chainListSchema.safeParse(await response.json().catch(() => undefined));
  if (!parsed.success) throw new Error('The proxy’s chain listing is not what it documents: is it up to date?');
  cached = { key, at: Date.now(), chains: parsed.data };
  return parsed.data;
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
