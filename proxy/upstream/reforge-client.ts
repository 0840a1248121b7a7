import {
  chainListSchema,
  prepareReforgeResponseSchema,
  type ChainEntry,
  type PrepareReforge,
} from '../../schemas/reforge.ts';
import { callReporting, expectOk, type UpstreamApi } from './http-call.ts';
import { READ_RETRIES, withRetries } from './retry.ts';
import type { UpstreamHealth } from './upstream-health.ts';

/**
 * The cross-chain transfer service, reads and prepare only. Prepare computes an unsigned transaction
 * and changes nothing, so it is retried like a read. The execute operations, which want a private
 * key, are never called: wallets sign on the user's device (a private key never leaves it).
 */
export class ReforgeClient {
  constructor(
    private readonly api: UpstreamApi,
    private readonly health: UpstreamHealth,
  ) {}

  chains(network: 'main' | 'test'): Promise<ChainEntry[]> {
    const path = network === 'main' ? 'getChainsAndTokens' : 'getTestChainsAndTokens';
    return withRetries(
      async () =>
        expectOk(
          'reforge',
          await callReporting(this.health, this.api, 'reforge', 'get', path),
          chainListSchema,
          this.health,
          path,
        ),
      READ_RETRIES,
    );
  }

  prepare(request: Omit<PrepareReforge, 'sourceRpcUrl'>): Promise<{ tx: string }> {
    return withRetries(async () => {
      const response = await callReporting(this.health, this.api, 'reforge', 'post', 'prepareReforge', {
        json: request,
      });
      const { tx } = expectOk('reforge', response, prepareReforgeResponseSchema, this.health, 'prepareReforge');
      return { tx };
    }, READ_RETRIES);
  }
}
