import type { ChainEntry, PrepareReforge } from '../../schemas/reforge.ts';
import { upstreamProblem } from '../http/upstream-problem.ts';
import type { ReforgeClient } from '../upstream/reforge-client.ts';
import { TtlCache } from '../upstream/ttl-cache.ts';

/** Chains change rarely and every wallet panel asks for them: the listing is cached for a minute. */
const CHAINS_TTL_MS = 60_000;

/** The chains and tokens the cross-chain service offers, for the wallet panel and the extension. */
export class ChainDirectory {
  private readonly cache = new TtlCache<ChainEntry[]>(CHAINS_TTL_MS);

  constructor(private readonly reforge: ReforgeClient) {}

  async list(network: 'main' | 'test'): Promise<ChainEntry[]> {
    try {
      return await this.cache.get(network, () => this.reforge.chains(network));
    } catch (error) {
      throw upstreamProblem(error, 'client');
    }
  }

  async prepare(request: Omit<PrepareReforge, 'sourceRpcUrl'>): Promise<{ tx: string }> {
    try {
      return await this.reforge.prepare(request);
    } catch (error) {
      throw upstreamProblem(error, 'client');
    }
  }
}
