import { id, toQuantity, zeroPadValue } from 'ethers';
import { toUnits } from '../../lib/money.ts';
import type { RpcLog } from '../../lib/rpc-log.ts';
import { chainCall, type ChainRpcOptions } from './chain-rpc.ts';

const REFORGE_MINT = id('ReforgeMint(address,uint256,bytes32)');
/** Blocks asked for in one `eth_getLogs`: nodes refuse wide ranges. */
const BLOCKS_PER_QUERY = 5_000;
/** Queries per look, so one look stays bounded on a chain far ahead of where it started. */
const QUERIES_PER_LOOK = 10;

/**
 * The burn id under which the issuer mints an order (`ReforgeMint(to, amount, burnId)`,
 * docs/upstream.md): how Kassa tells the mint of an order from any other arrival of the same coin.
 */
export const orderBurnId = (orderId: string): string => id(`kassa-order:${orderId}`);

export interface Mint {
  txHash: string;
  blockNumber: number;
  /** The order it mints. */
  orderId: string;
}

export interface MintQuery {
  rpcUrl: string;
  token: string;
  decimals: number;
  wallet: string;
  /** Whole tokens. */
  amount: string;
  /** The orders whose mint is looked for. */
  orderIds: readonly string[];
  fromBlock: number;
}

/** The chain's latest block number. */
export async function latestBlock(rpcUrl: string, options: ChainRpcOptions): Promise<number> {
  return Number(BigInt(await chainCall<string>(rpcUrl, 'eth_blockNumber', [], options)));
}

/**
 * The mints of these orders, oldest first: the token's `ReforgeMint` to the wallet under an order's
 * burn id, of exactly the amount, from `fromBlock` on. The order service names no transaction, so
 * this is how the proxy sees a delivery for itself; a bridge arrival or another order's mint of the
 * same amount carries another burn id and is not one.
 */
export async function findMints(query: MintQuery, options: ChainRpcOptions): Promise<Mint[]> {
  if (query.orderIds.length === 0) return [];
  const orderOf = new Map(query.orderIds.map((orderId) => [orderBurnId(orderId), orderId]));
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
          topics: [REFORGE_MINT, zeroPadValue(query.wallet, 32), [...orderOf.keys()]],
          fromBlock: toQuantity(from),
          toBlock: toQuantity(to),
        },
      ],
      options,
    );
    for (const log of Array.isArray(logs) ? logs : []) {
      const mint = String(log.address).toLowerCase() === query.token.toLowerCase() && asMint(log, value, orderOf);
      if (mint) mints.push(mint);
    }
    from = to + 1;
  }
  return mints;
}

/** A log as the mint of one of the orders, of exactly `value`; undefined for anything else, a malformed entry included. */
function asMint(log: RpcLog, value: bigint, orderOf: ReadonlyMap<string, string>): Mint | undefined {
  try {
    const orderId = orderOf.get(String(log.topics?.[2]).toLowerCase());
    if (log.removed || orderId === undefined) return undefined;
    if (!/^0x[0-9a-fA-F]{1,64}$/.test(log.data) || BigInt(log.data) !== value) return undefined;
    if (!/^0x[0-9a-fA-F]{64}$/.test(log.transactionHash)) return undefined;
    return { txHash: log.transactionHash.toLowerCase(), blockNumber: Number(BigInt(log.blockNumber)), orderId };
  } catch {
    return undefined;
  }
}
