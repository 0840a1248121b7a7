import { getAddress, isAddress, type JsonRpcProvider } from 'ethers';
import { STABLECOINS, type Stablecoin } from '../../schemas/orders.ts';
import type { ChainEntry, NativeCurrency, TokenInfo } from '../../schemas/reforge.ts';
import { startAnvil, type AnvilNode } from './anvil.ts';
import { chainProvider } from './provider.ts';
import { deployStablecoins } from './stablecoins.ts';

export type ChainNetwork = 'test' | 'main';

export interface ChainConfig {
  name: string;
  chainId: number;
  /** Which listing shows the chain: `getTestChainsAndTokens` (the default) or `getChainsAndTokens`. */
  network?: ChainNetwork;
}

/** A chain of the emulator, as callers of `startSandbox` see it. */
export interface SandboxChain {
  name: string;
  chainId: number;
  rpcUrl: string;
  network: ChainNetwork;
  tokens: Record<Stablecoin, TokenInfo>;
}

/** A running chain with what the emulator itself needs to use it. */
export interface LocalChain extends SandboxChain {
  provider: JsonRpcProvider;
  /** anvil's ten default accounts, each funded with every stablecoin. */
  holders: string[];
}

export const DEFAULT_CHAINS: readonly ChainConfig[] = [
  { name: 'Kassa Local One', chainId: 31337 },
  { name: 'Kassa Local Two', chainId: 31338 },
];

export const NATIVE_CURRENCY: NativeCurrency = { name: 'Ether', symbol: 'ETH', decimals: 18 };

/** The emulator's EVM chains: one anvil each, started side by side, with the stablecoins deployed. */
export class LocalChains {
  private readonly byTokenAddress = new Map<string, { chain: LocalChain; symbol: Stablecoin }>();

  private constructor(
    readonly chains: readonly LocalChain[],
    private readonly nodes: readonly AnvilNode[],
  ) {
    for (const chain of chains) {
      for (const symbol of STABLECOINS) this.byTokenAddress.set(chain.tokens[symbol].address, { chain, symbol });
    }
  }

  static async start(configs: readonly ChainConfig[] = DEFAULT_CHAINS): Promise<LocalChains> {
    checkConfigs(configs);
    const started = await Promise.allSettled(configs.map((config) => startAnvil(config.chainId)));
    const nodes = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
    try {
      const failed = started.find((result) => result.status === 'rejected');
      if (failed) throw failed.reason;
      const chains = await Promise.all(configs.map((config, index) => prepareChain(config, index, nodes[index]!)));
      return new LocalChains(chains, nodes);
    } catch (error) {
      await Promise.all(nodes.map((node) => node.stop()));
      throw error;
    }
  }

  byId(chainId: number): LocalChain | undefined {
    return this.chains.find((chain) => chain.chainId === chainId);
  }

  /** The chain and stablecoin of a token address, in any letter case. */
  byToken(address: string): { chain: LocalChain; symbol: Stablecoin } | undefined {
    return isAddress(address) ? this.byTokenAddress.get(getAddress(address.toLowerCase())) : undefined;
  }

  /** The chain whose RPC URL this is; a trailing slash and the host's letter case do not matter. */
  byRpcUrl(url: string): LocalChain | undefined {
    const wanted = normalizeUrl(url);
    return wanted === undefined ? undefined : this.chains.find((chain) => normalizeUrl(chain.rpcUrl) === wanted);
  }

  ids(): string {
    return this.chains.map((chain) => chain.chainId).join(', ');
  }

  /**
   * The chains of one listing, as the reforge API returns them; with `explorerBase`, each links its
   * explorer pages (`${explorerBase}/${chainId}`).
   */
  listing(network: ChainNetwork, explorerBase?: string): ChainEntry[] {
    return this.chains
      .filter((chain) => chain.network === network)
      .map((chain) => ({
        name: chain.name,
        chainId: chain.chainId,
        rpcUrl: chain.rpcUrl,
        nativeCurrency: NATIVE_CURRENCY,
        ...(explorerBase ? { blockExplorerUrl: `${explorerBase}/${chain.chainId}` } : {}),
        tokens: chain.tokens,
      }));
  }

  /** The public view of each chain, without the emulator's own handles. */
  describe(): SandboxChain[] {
    return this.chains.map(({ name, chainId, rpcUrl, network, tokens }) => ({
      name,
      chainId,
      rpcUrl,
      network,
      tokens,
    }));
  }

  async stop(): Promise<void> {
    for (const chain of this.chains) chain.provider.destroy();
    await Promise.all(this.nodes.map((node) => node.stop()));
  }
}

async function prepareChain(config: ChainConfig, index: number, node: AnvilNode): Promise<LocalChain> {
  const provider = chainProvider(node.rpcUrl, config.chainId);
  const holders = ((await provider.send('eth_accounts', [])) as string[]).map((address) => getAddress(address));
  const tokens = await deployStablecoins(provider, config.chainId, index, holders);
  return {
    name: config.name,
    chainId: config.chainId,
    rpcUrl: node.rpcUrl,
    network: config.network ?? 'test',
    tokens,
    provider,
    holders,
  };
}

function checkConfigs(configs: readonly ChainConfig[]): void {
  if (configs.length === 0) throw new Error('chains: at least one chain is needed');
  const ids = new Set<number>();
  const names = new Set<string>();
  for (const { name, chainId, network } of configs) {
    if (!Number.isSafeInteger(chainId) || chainId <= 0)
      throw new Error(`chains: chainId must be a positive integer, not ${chainId}`);
    if (ids.has(chainId)) throw new Error(`chains: chainId ${chainId} is configured twice`);
    if (!name.trim()) throw new Error(`chains: chain ${chainId} needs a name`);
    if (names.has(name)) throw new Error(`chains: the name "${name}" is configured twice`);
    if (network !== undefined && network !== 'test' && network !== 'main')
      throw new Error(`chains: network must be "test" or "main", not "${String(network)}"`);
    ids.add(chainId);
    names.add(name);
  }
}

function normalizeUrl(url: string): string | undefined {
  try {
    return new URL(url).href.replace(/\/+$/, '');
  } catch {
    return undefined;
  }
}
