import type { ChainEntry } from '../../schemas/reforge.ts';
import { ProxyClient, ProxyError } from '../shared/proxy-client.ts';

export type BridgeNetwork = 'test' | 'main';

/** What the panel asks the proxy to prepare (BridgePrepareRequest in schemas/proxy-api.ts). */
export interface PrepareRequest {
  /** Whole tokens, a decimal string. */
  sourceAmount: string;
  sourceToken: string;
  destinationToken: string;
  destinationChainId: number;
}

/**
 * The browser side of the proxy's bridge routes (proxy/bridge/bridge-routes.ts): the chain listing
 * and prepare. There is nothing else to call: the user's wallet signs and broadcasts, and no request
 * of the panel ever carries key material.
 */
export class BridgeClient extends ProxyClient {
  async chains(network: BridgeNetwork): Promise<ChainEntry[]> {
    const { body } = await this.call<unknown>(`/api/bridge/chains?network=${network}`);
    if (!Array.isArray(body)) throw new ProxyError('unavailable', 200, 'The chain listing is not a list');
    return body.filter(isChainEntry);
  }

  async prepare(request: PrepareRequest): Promise<string> {
    const { body } = await this.call<{ tx?: unknown }>('/api/bridge/prepare', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(request),
    });
    if (typeof body.tx !== 'string' || !/^0x02[0-9a-fA-F]*$/.test(body.tx))
      throw new ProxyError('unavailable', 200, 'The prepared transaction is missing or not an EIP-1559 transaction');
    return body.tx;
  }
}

const ADDRESS = /^0x[0-9a-fA-F]{40}$/;

/** A listing entry the panel can use: anything malformed is left out rather than half-shown. */
function isChainEntry(value: unknown): value is ChainEntry {
  const chain = value as ChainEntry;
  const native = chain?.nativeCurrency;
  return (
    typeof chain === 'object' &&
    chain !== null &&
    typeof chain.name === 'string' &&
    Number.isSafeInteger(chain.chainId) &&
    chain.chainId > 0 &&
    typeof chain.rpcUrl === 'string' &&
    /^https?:\/\//.test(chain.rpcUrl) &&
    typeof native === 'object' &&
    native !== null &&
    typeof native.symbol === 'string' &&
    typeof native.name === 'string' &&
    Number.isInteger(native.decimals) &&
    typeof chain.tokens === 'object' &&
    chain.tokens !== null &&
    Object.values(chain.tokens).every(
      (token) =>
        typeof token?.symbol === 'string' &&
        typeof token.name === 'string' &&
        ADDRESS.test(token.address) &&
        Number.isInteger(token.decimals) &&
        token.decimals >= 0 &&
        token.decimals <= 77,
    )
  );
}
