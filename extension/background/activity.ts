/**
 * The wallet tab's balances and activity for Kassa's own account, read from the listed chains: the
 * account's token balance on every chain, and its transfers (its `ReforgeBurn` logs), each with where
 * it is (arrived: the destination's `ReforgeMint` with its burn id; refunded: the same on the source
 * chain; else still under way, or delayed after two minutes). The last reading is kept in IndexedDB,
 * so the tab shows it at once while the chains are read again.
 */
import { Interface } from 'ethers';
import { fromUnits } from '../../lib/money.ts';
import { REFORGE_TOKEN_ABI } from '../../lib/reforge-abi.ts';
import type { RpcLog } from '../../lib/rpc-log.ts';
import type { ChainEntry } from '../../schemas/reforge.ts';
import type { Activity, ActivityTransfer } from '../messages.ts';
import { rpc } from './rpc.ts';

const token = new Interface(REFORGE_TOKEN_ABI);
const BURN = token.getEvent('ReforgeBurn')!.topicHash;
const MINT = token.getEvent('ReforgeMint')!.topicHash;
/** Mined, not arrived after this long: delayed (the wallet panel's default on test networks). */
const DELAYED_MS = 2 * 60_000;
const MOST = 20;

interface Burned {
  amount: bigint;
  destinationChainId: bigint;
  burnId: string;
}

const word = (address: string) => `0x${address.toLowerCase().slice(2).padStart(64, '0')}`;

async function logs(chain: ChainEntry, address: string[], topics: Array<string | null>): Promise<RpcLog[]> {
  return (await rpc(chain, 'eth_getLogs', [{ address, topics, fromBlock: '0x0', toBlock: 'latest' }])) as RpcLog[];
}

/** Reads the account's balances and transfers on every listed chain; a chain that cannot be read is skipped. */
export async function readActivity(account: string, chains: ChainEntry[]): Promise<Activity> {
  const balances: Activity['balances'] = [];
  const transfers: ActivityTransfer[] = [];
  await Promise.all(
    chains.map(async (chain) => {
      const tokens = Object.entries(chain.tokens);
      await Promise.all(
        tokens.map(async ([symbol, info]) => {
          const units = await rpc(chain, 'eth_call', [
            { to: info.address, data: token.encodeFunctionData('balanceOf', [account]) },
            'latest',
          ]).then(
            (result) => BigInt(result as string),
            () => undefined,
          );
          balances.push({
            chainId: chain.chainId,
            chain: chain.name,
            symbol,
            amount: units === undefined ? null : fromUnits(units, info.decimals),
          });
        }),
      );
      const burns = await logs(
        chain,
        tokens.map(([, info]) => info.address),
        [BURN, word(account)],
      ).catch(() => []);
      for (const burn of burns.slice(-MOST)) {
        const parsed = token.parseLog(burn);
        const [symbol, info] = tokens.find(([, t]) => t.address.toLowerCase() === burn.address.toLowerCase()) ?? [];
        if (!parsed || !symbol || !info) continue;
        const { amount, destinationChainId, burnId } = parsed.args as unknown as Burned;
        transfers.push(
          await follow(chain, chains, account, burn, symbol, info.decimals, { amount, destinationChainId, burnId }),
        );
      }
    }),
  );
  balances.sort((a, b) => a.chainId - b.chainId || a.symbol.localeCompare(b.symbol));
  transfers.sort((a, b) => b.sentAt - a.sentAt);
  return { account, balances, transfers: transfers.slice(0, MOST), readAt: Date.now() };
}

async function follow(
  source: ChainEntry,
  chains: ChainEntry[],
  account: string,
  burn: RpcLog,
  symbol: string,
  decimals: number,
  { amount, destinationChainId, burnId }: Burned,
): Promise<ActivityTransfer> {
  const block = (await rpc(source, 'eth_getBlockByNumber', [burn.blockNumber, false]).catch(() => null)) as {
    timestamp?: string;
  } | null;
  const sentAt = block?.timestamp ? Number(BigInt(block.timestamp)) * 1000 : 0;
  const transfer: ActivityTransfer = {
    hash: burn.transactionHash,
    burnId,
    sourceChainId: source.chainId,
    destinationChainId: Number(destinationChainId),
    symbol,
    amount: fromUnits(amount, decimals),
    sentAt,
    state: Date.now() - sentAt > DELAYED_MS ? 'delayed' : 'confirmed',
  };
  const destination = chains.find((chain) => chain.chainId === transfer.destinationChainId);
  const mintOn = (chain: ChainEntry) =>
    chain.tokens[symbol]
      ? logs(chain, [chain.tokens[symbol].address], [MINT, word(account), burnId]).catch(() => [])
      : Promise.resolve([]);
  const [arrived] = destination ? await mintOn(destination) : [];
  if (arrived) return { ...transfer, state: 'arrived', destinationHash: arrived.transactionHash };
  const [refunded] = await mintOn(source);
  if (refunded) return { ...transfer, state: 'refunded', refundHash: refunded.transactionHash };
  return transfer;
}

const DB = 'kassa-activity';
const STORE = 'readings';

function open(): Promise<IDBDatabase> {
  return new Promise((resolve, reject) => {
    const request = indexedDB.open(DB, 1);
    request.onupgradeneeded = () => request.result.createObjectStore(STORE, { keyPath: 'account' });
    request.onsuccess = () => resolve(request.result);
    request.onerror = () => reject(request.error ?? new Error('IndexedDB unavailable'));
  });
}

/** The last reading kept for `account`, if any. */
export async function keptActivity(account: string): Promise<Activity | undefined> {
  try {
    const db = await open();
    const request = db.transaction(STORE).objectStore(STORE).get(account.toLowerCase());
    return await new Promise((resolve) => {
      request.onsuccess = () => resolve((request.result as { activity: Activity } | undefined)?.activity);
      request.onerror = () => resolve(undefined);
    });
  } catch {
    return undefined;
  }
}

export async function keepActivity(activity: Activity): Promise<void> {
  try {
    const db = await open();
    db.transaction(STORE, 'readwrite').objectStore(STORE).put({ account: activity.account.toLowerCase(), activity });
  } catch {
    // Not kept: the tab reads the chains again next time.
  }
}
