import { id, toQuantity, zeroPadValue } from 'ethers';
import { toUnits } from '../../lib/money.ts';
import type { RpcLog } from '../../lib/rpc-log.ts';
import { chainCall, type ChainRpcOptions } from './chain-rpc.ts';

const TRANSFER = id('Transfer(address,address,uint256)');
const FROM_NOWHERE = zeroPadValue('0x00', 32);
/** Blocks asked for in one `eth_getLogs`: nodes refuse wide ranges. */
const BLOCKS_PER_QUERY = 5_000;
/** Queries per look, so one look stays bounded on a chain far ahead of where it started. */
const QUERIES_PER_LOOK = 10;

export interface Mint {
  txHash: string;
  blockNumber: number;
}

export interface MintQuery {
  rpcUrl: string;
  token: string;
  decimals: number;
  wallet: string;
  /** Whole tokens. */
  amount: string;
  fromBlock: number;
}

/** The chain's latest block number. */
export async function latestBlock(rpcUrl: string, options: ChainRpcOptions): Promise<number> {
  return Number(BigInt(await chainCall<string>(rpcUrl, 'eth_blockNumber', [], options)));
}

/**
 * The mints that could be a purchase's delivery, oldest first: token `Transfer`s from the zero
 * address to the wallet, of exactly the amount, from `fromBlock` on. The order service names no
 * transaction, so this is how the proxy sees a delivery for itself; a mint that another purchase
 * already claimed is passed over by the caller.
 */
export async function findMints(query: MintQuery, options: ChainRpcOptions): Promise<Mint[]> {
  const head = await latestBlock(query.rpcUrl, options);
  const value = toUnits(query.amount, query.decimals);
  const mints: Mint[] = [];
  let from = query.fromBlock;
  for (let queries = 0; from <= head && queries < QUERIES_PER_LOOK; queries++) {
    const to = Math.min(head, from + BLOCKS_PER_QUERY - 1);
    const logs = await chainCall<RpcLog[]>(
      query.rpcUrl,
      'eth_getLogs',
      [
        {
          address: query.token,
          topics: [TRANSFER, FROM_NOWHERE, zeroPadValue(query.wallet, 32)],
          fromBlock: toQuantity(from),
          toBlock: toQuantity(to),
        },
      ],
      options,
    );
    for (const log of Array.isArray(logs) ? logs : []) {
      const mint = asMint(log, value);
      if (mint) mints.push(mint);
    }
    from = to + 1;
  }
  return mints;
}

/** A log as a mint of exactly `value`; undefined for anything else, a malformed entry included. */
function asMint(log: RpcLog, value: bigint): Mint | undefined {
  try {
    if (log.removed || !/^0x[0-9a-fA-F]{1,64}$/.test(log.data) || BigInt(log.data) !== value) return undefined;
    if (!/^0x[0-9a-fA-F]{64}$/.test(log.transactionHash)) return undefined;
    return { txHash: log.transactionHash.toLowerCase(), blockNumber: Number(BigInt(log.blockNumber)) };
  } catch {
    return undefined;
  }
}
