import type { RpcLog } from '../../lib/rpc-log.ts';
import { BridgeError, type BridgeStage } from './errors.ts';

/** A chain as the panel reads it: the listing's id, name and RPC URL. */
export interface RpcChain {
  chainId: number;
  name: string;
  rpcUrl: string;
}

/** The fields of a JSON-RPC transaction the panel reads (quantities are hex). */
export interface RpcTransaction {
  hash: string;
  from: string;
  to: string | null;
  nonce: string;
  input: string;
  value: string;
  blockNumber: string | null;
}

export interface RpcReceipt {
  transactionHash: string;
  blockNumber: string;
  status: string;
  gasUsed: string;
  /** What each unit of gas cost (the base fee plus the tip paid). */
  effectiveGasPrice?: string;
  logs: RpcLog[];
}

export interface RpcBlock {
  number: string;
  transactions: RpcTransaction[];
}

export type BlockTag = bigint | 'latest' | 'pending';

const TIMEOUT_MS = 15_000;
/** `balanceOf(address)`: the one call the panel makes, encoded by hand to keep the chunk small. */
const BALANCE_OF = '0x70a08231';

const tag = (block: BlockTag) => (typeof block === 'bigint' ? `0x${block.toString(16)}` : block);
export const hexToBigInt = (value: string | null | undefined): bigint => (value ? BigInt(value) : 0n);
/** An address as a 32-byte topic or call argument. */
export const addressWord = (address: string) => `0x${address.toLowerCase().replace(/^0x/, '').padStart(64, '0')}`;

/**
 * A chain's JSON-RPC endpoint, read directly from the browser (the RPC URL of the proxy's listing):
 * balances, receipts, logs. Only reads: the wallet is what sends. A small fetch client rather than an
 * ethers provider, which would weigh more than the rest of the panel together.
 */
export class ChainRpc {
  private nextId = 1;
  private verified?: Promise<void>;

  constructor(
    readonly chain: RpcChain,
    private readonly timeoutMs = TIMEOUT_MS,
  ) {}

  /** One JSON-RPC call; failures are `rpc` BridgeErrors of this stage, naming the chain. */
  async request<T>(method: string, params: unknown[], stage: BridgeStage): Promise<T> {
    await this.verify(stage);
    return this.send<T>(method, params, stage);
  }

  /** The endpoint must serve the chain the listing says: a wrong URL must not pass for it. */
  private verify(stage: BridgeStage): Promise<void> {
    this.verified ??= this.send<string>('eth_chainId', [], stage).then((id) => {
      if (hexToBigInt(id) !== BigInt(this.chain.chainId))
        throw new BridgeError(
          'rpc',
          stage,
          `${this.chain.rpcUrl} serves chain ${hexToBigInt(id)}, not ${this.chain.chainId}`,
          { chainId: this.chain.chainId },
        );
    });
    // A failed check is tried again on the next call (the chain may have been briefly unreachable).
    this.verified.catch(() => (this.verified = undefined));
    return this.verified;
  }

  private async send<T>(method: string, params: unknown[], stage: BridgeStage): Promise<T> {
    const fail = (message: string, code?: number) =>
      new BridgeError('rpc', stage, `${this.chain.name} (${method}): ${message}`, {
        chainId: this.chain.chainId,
        ...(code === undefined ? {} : { code }),
      });
    let response: Response;
    try {
      response = await fetch(this.chain.rpcUrl, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: this.nextId++, method, params }),
        credentials: 'omit',
        cache: 'no-store',
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      throw fail((error as Error).message);
    }
    const body = (await response.json().catch(() => undefined)) as
      { result?: T; error?: { code?: number; message?: string } } | undefined;
    if (!response.ok || !body || typeof body !== 'object') throw fail(`HTTP ${response.status}`);
    if (body.error)
      throw fail(
        String(body.error.message ?? 'error'),
        typeof body.error.code === 'number' ? body.error.code : undefined,
      );
    if (!('result' in body)) throw fail('no result');
    return body.result as T;
  }

  async blockNumber(stage: BridgeStage): Promise<bigint> {
    return hexToBigInt(await this.request<string>('eth_blockNumber', [], stage));
  }

  async tokenBalance(token: string, owner: string, stage: BridgeStage, block: BlockTag = 'latest'): Promise<bigint> {
    const result = await this.request<string>(
      'eth_call',
      [{ to: token, data: BALANCE_OF + addressWord(owner).slice(2) }, tag(block)],
      stage,
    );
    if (!/^0x[0-9a-fA-F]{1,64}$/.test(result))
      throw new BridgeError('rpc', stage, `${this.chain.name}: balanceOf answered ${result.slice(0, 80)}`, {
        chainId: this.chain.chainId,
      });
    return BigInt(result);
  }

  async nativeBalance(owner: string, stage: BridgeStage): Promise<bigint> {
    return hexToBigInt(await this.request<string>('eth_getBalance', [owner, 'latest'], stage));
  }

  /** The account's nonce: transactions mined (`latest`), or also those waiting (`pending`). */
  async nonce(owner: string, stage: BridgeStage, block: BlockTag = 'latest'): Promise<bigint> {
    return hexToBigInt(await this.request<string>('eth_getTransactionCount', [owner, tag(block)], stage));
  }

  receipt(hash: string, stage: BridgeStage): Promise<RpcReceipt | null> {
    return this.request<RpcReceipt | null>('eth_getTransactionReceipt', [hash], stage);
  }

  transaction(hash: string, stage: BridgeStage): Promise<RpcTransaction | null> {
    return this.request<RpcTransaction | null>('eth_getTransactionByHash', [hash], stage);
  }

  block(number: bigint, stage: BridgeStage): Promise<RpcBlock | null> {
    return this.request<RpcBlock | null>('eth_getBlockByNumber', [tag(number), true], stage);
  }

  logs(
    filter: { address: string; topics: Array<string | null>; fromBlock: bigint },
    stage: BridgeStage,
  ): Promise<RpcLog[]> {
    return this.request<RpcLog[]>(
      'eth_getLogs',
      [{ address: filter.address, topics: filter.topics, fromBlock: tag(filter.fromBlock), toBlock: 'latest' }],
      stage,
    );
  }
}
