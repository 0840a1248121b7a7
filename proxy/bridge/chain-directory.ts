import type { ChainEntry, PrepareReforge } from '../../schemas/reforge.ts';
import { callUpstream } from '../domain/domain-errors.ts';
import type { ReforgeClient } from '../upstream/reforge-client.ts';
import { TtlCache } from '../upstream/ttl-cache.ts';

/** Chains change rarely and every wallet panel asks for them: the listing is cached for a minute. */
const CHAINS_TTL_MS = 60_000;

/** The chains and tokens the cross-chain service offers, for the wallet panel and the extension. */
export class ChainDirectory {
  private readonly cache = new TtlCache<ChainEntry[]>(CHAINS_TTL_MS);

  constructor(private readonly reforge: ReforgeClient) {}

  async list(network: 'main' | 'test'): Promise<ChainEntry[]> {
    return callUpstream('client', () => this.cache.get(network, () => this.reforge.chains(network)));
  }

  async prepare(request: Omit<PrepareReforge, 'sourceRpcUrl'>): Promise<{ tx: string }> {
    return callUpstream('client', () => this.reforge.prepare(request));
  }
}
