import { Interface } from 'ethers';
import { REFORGE_TOKEN_ABI } from '../../lib/reforge-abi.ts';
import type { RpcLog } from '../../lib/rpc-log.ts';
import { addressWord, hexToBigInt, type ChainRpc, type RpcReceipt } from './chain-rpc.ts';
import { BridgeError, type BridgeStage } from './errors.ts';
import type { BridgeTimeouts } from './events.ts';
import type { TransferRecord } from './transfer-store.ts';

export const DEFAULT_TIMEOUTS: BridgeTimeouts = {
  mined: 10 * 60_000,
  dropped: 3 * 60_000,
  delayed: 2 * 60_000,
  arrival: 15 * 60_000,
};

/** Main networks' bridges take longer than the emulator's: a transfer is delayed only after 20 minutes there. */
export const MAIN_DELAYED_MS = 20 * 60_000;

/** How long a chain's RPC may keep failing before following stops with an `rpc` error. */
const RPC_OUTAGE_MS = 45_000;
const POLL_FIRST_MS = 400;
const POLL_MAX_MS = 4_000;
/** The most blocks read when looking for the transaction that took this one's nonce. */
const REPLACEMENT_SCAN_BLOCKS = 256n;

const token = new Interface(REFORGE_TOKEN_ABI);
const BURN = token.getEvent('ReforgeBurn')!;
const MINT = token.getEvent('ReforgeMint')!;

export interface Mined {
  hash: string;
  blockNumber: number;
  burnId: string;
  gasUsed: bigint;
  /** gasUsed × the price paid: the network fee, in the chain's native base units. */
  fee: bigint;
}

export interface Arrived {
  kind: 'arrived';
  burnId: string;
  /** The relayer's mint transaction on the destination chain. */
  destinationHash: string;
  destinationBlock: number;
  /** The account's balance of the token on the destination chain after the arrival, base units. */
  balance: bigint;
}

/** The relayer could not serve the burn and minted it back to the account on the source chain, under the same burn id. */
export interface Refunded {
  kind: 'refunded';
  burnId: string;
  refundHash: string;
  refundBlock: number;
  /** The account's balance of the token on the source chain after the refund, base units. */
  balance: bigint;
}

export interface FollowEvents {
  /** The wallet re-sent the same transfer with other fees (speed up): follow this hash now. */
  onRepriced(hash: string): void;
  onMined(mined: Mined): void;
}

/** Waits `ms`, or rejects as soon as `signal` is aborted (with its reason, an AbortError by default). */
const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const stop = () => reject(signal.reason as Error);
    if (signal.aborted) return stop();
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => (clearTimeout(timer), stop()), { once: true });
  });

/**
 * Polls `step` until it returns a value, backing off from 0.4 s to 4 s. A chain RPC that fails is
 * retried until it has failed for RPC_OUTAGE_MS in a row; `deadline` ends the wait with `onTimeout`.
 */
async function poll<T>(
  step: () => Promise<T | undefined>,
  deadline: number,
  onTimeout: () => BridgeError,
  signal: AbortSignal,
): Promise<T> {
  let interval = POLL_FIRST_MS;
  let failingSince: number | undefined;
  for (;;) {
    signal.throwIfAborted();
    try {
      const value = await step();
      // Stopped while the read was in flight: nothing more may come of it (no callback, no result).
      signal.throwIfAborted();
      failingSince = undefined;
      if (value !== undefined) return value;
    } catch (error) {
      if (!(error instanceof BridgeError) || error.kind !== 'rpc') throw error;
      failingSince ??= Date.now();
      if (Date.now() - failingSince > RPC_OUTAGE_MS) throw error;
    }
    signal.throwIfAborted();
    if (Date.now() > deadline) throw onTimeout();
    await sleep(interval, signal);
    interval = Math.min(POLL_MAX_MS, Math.round(interval * 1.5));
  }
}

/**
 * Follows a sent transfer to its receipt on the source chain. Rejects with `reverted` (mined with
 * status 0), `replaced` (another transaction took its nonce), `dropped` (the chain forgot it),
 * `timeout` or `rpc`. A wallet's "speed up" (same call, other fees, new hash) is followed through.
 */
export async function followToReceipt(
  record: TransferRecord,
  source: ChainRpc,
  timeouts: BridgeTimeouts,
  events: FollowEvents,
  signal: AbortSignal,
): Promise<Mined> {
  const stage: BridgeStage = 'mined';
  const deadline = record.sentAt + timeouts.mined;
  let lastSeen = record.sentAt;
  const receipt = await poll<RpcReceipt>(
    async () => {
      const found = await source.receipt(record.hash, stage);
      if (found) return found;
      const tx = await source.transaction(record.hash, stage);
      if (tx) {
        lastSeen = Date.now();
        record.nonce ??= hexToBigInt(tx.nonce).toString();
        return undefined;
      }
      // Not known: was its nonce taken by another transaction (a replacement, or a speed-up)?
      const mined = await source.nonce(record.from, stage);
      const nonce = BigInt(record.nonce ?? record.nonceBefore);
      if (mined > nonce) {
        const replacement = await findReplacement(record, source, stage);
        if (replacement) {
          signal.throwIfAborted();
          record.hash = replacement;
          events.onRepriced(replacement);
          return undefined;
        }
        if (record.nonce !== undefined) {
          // Mined in the meantime after all (the nonce moved because of it)?
          const late = await source.receipt(record.hash, stage);
          if (late) return late;
          throw new BridgeError(
            'replaced',
            stage,
            `Transaction ${record.hash} was replaced: nonce ${nonce} is taken by another transaction`,
          );
        }
      }
      if (Date.now() - lastSeen > timeouts.dropped)
        throw new BridgeError(
          'dropped',
          stage,
          `Transaction ${record.hash} is unknown to ${source.chain.name} and was not mined`,
        );
      return undefined;
    },
    deadline,
    () =>
      new BridgeError(
        'timeout',
        stage,
        `No receipt for ${record.hash} on ${source.chain.name} within ${timeouts.mined} ms`,
      ),
    signal,
  );
  if (hexToBigInt(receipt.status) !== 1n)
    throw new BridgeError('reverted', stage, `Transaction ${record.hash} was reverted on ${source.chain.name}`);
  const burn = receipt.logs.map((log) => burnOf(log, record)).find((found) => found !== undefined);
  if (!burn) throw new BridgeError('reverted', stage, `Transaction ${record.hash} was mined but burned nothing`);
  const gasUsed = hexToBigInt(receipt.gasUsed);
  const mined = {
    hash: receipt.transactionHash,
    blockNumber: Number(hexToBigInt(receipt.blockNumber)),
    burnId: burn,
    gasUsed,
    fee: gasUsed * hexToBigInt(receipt.effectiveGasPrice),
  };
  events.onMined(mined);
  return mined;
}

/** The burn id of this transfer's `ReforgeBurn` log, when `log` is it (same token, sender, amount, destination). */
function burnOf(log: RpcLog, record: TransferRecord): string | undefined {
  if (log.address.toLowerCase() !== record.sourceToken.toLowerCase() || log.topics[0] !== BURN.topicHash)
    return undefined;
  try {
    const parsed = token.parseLog({ topics: log.topics, data: log.data });
    if (!parsed) return undefined;
    const [from, amount, destinationChainId, , burnId] = parsed.args as unknown as [
      string,
      bigint,
      bigint,
      string,
      string,
    ];
    if (
      from.toLowerCase() !== record.from.toLowerCase() ||
      amount !== BigInt(record.units) ||
      destinationChainId !== BigInt(record.destinationChainId)
    )
      return undefined;
    return burnId;
  } catch {
    return undefined;
  }
}

/**
 * The hash of a mined transaction from the same account that carries the same call as this one (a
 * speed-up), looked for in the blocks since sending; undefined when the nonce went to something else.
 */
async function findReplacement(
  record: TransferRecord,
  source: ChainRpc,
  stage: BridgeStage,
): Promise<string | undefined> {
  const latest = await source.blockNumber(stage);
  const first = BigInt(record.sourceBlock) + 1n;
  const from = latest - REPLACEMENT_SCAN_BLOCKS > first ? latest - REPLACEMENT_SCAN_BLOCKS : first;
  for (let number = latest; number >= from; number--) {
    const block = await source.block(number, stage);
    for (const tx of block?.transactions ?? []) {
      if (tx.from.toLowerCase() !== record.from.toLowerCase()) continue;
      const sameNonce =
        record.nonce === undefined
          ? hexToBigInt(tx.nonce) >= BigInt(record.nonceBefore)
          : hexToBigInt(tx.nonce) === BigInt(record.nonce);
      if (
        sameNonce &&
        tx.to?.toLowerCase() === record.to.toLowerCase() &&
        tx.input.toLowerCase() === record.data.toLowerCase() &&
        hexToBigInt(tx.value) === 0n
      )
        return tx.hash;
    }
  }
  return undefined;
}

/**
 * Follows a mined burn to its arrival: the destination token's `ReforgeMint` to the same account
 * with the same burn id and amount, and the account's balance there risen by the amount at that
 * block. Watches the source chain too, for the relayer's refund under the same burn id (a burn it
 * could not serve). Rejects with `timeout` or `rpc`.
 */
export async function followToArrival(
  record: TransferRecord & { burnId: string },
  chains: { source: ChainRpc; destination: ChainRpc },
  timeouts: BridgeTimeouts,
  minedAt: number,
  signal: AbortSignal,
): Promise<Arrived | Refunded> {
  const stage: BridgeStage = 'arrival';
  const { source, destination } = chains;
  const units = BigInt(record.units);
  const mintsOf = (token: string, fromBlock: string) => ({
    address: token,
    topics: [MINT.topicHash, addressWord(record.from), record.burnId],
    fromBlock: BigInt(fromBlock),
  });
  const ours = (log: RpcLog, token: string) =>
    !log.removed && log.address.toLowerCase() === token.toLowerCase() && hexToBigInt(log.data.slice(0, 66)) === units;
  return poll<Arrived | Refunded>(
    async () => {
      const logs = await destination.logs(mintsOf(record.destinationToken, record.destinationBlock), stage);
      for (const log of logs) {
        if (!ours(log, record.destinationToken)) continue;
        const block = hexToBigInt(log.blockNumber);
        const balance = await destination.tokenBalance(record.destinationToken, record.from, stage);
        if (!(await rose(destination, record, block, balance))) continue;
        return {
          kind: 'arrived',
          burnId: record.burnId,
          destinationHash: log.transactionHash,
          destinationBlock: Number(block),
          balance,
        };
      }
      const refunds = await source.logs(mintsOf(record.sourceToken, record.blockNumber ?? record.sourceBlock), stage);
      const refund = refunds.find((log) => ours(log, record.sourceToken));
      if (!refund) return undefined;
      return {
        kind: 'refunded',
        burnId: record.burnId,
        refundHash: refund.transactionHash,
        refundBlock: Number(hexToBigInt(refund.blockNumber)),
        balance: await source.tokenBalance(record.sourceToken, record.from, stage),
      };
    },
    minedAt + timeouts.arrival,
    () =>
      new BridgeError(
        'timeout',
        stage,
        `No ReforgeMint for burn ${record.burnId} on ${destination.chain.name} within ${timeouts.arrival} ms`,
      ),
    signal,
  );
}

/**
 * Whether the mint shows in the balance: risen by the amount across the mint's block (exact, whatever
 * else the account does); where the node keeps no history, above the balance before sending.
 */
async function rose(destination: ChainRpc, record: TransferRecord, block: bigint, now: bigint): Promise<boolean> {
  try {
    const [before, after] = await Promise.all([
      destination.tokenBalance(record.destinationToken, record.from, 'arrival', block - 1n),
      destination.tokenBalance(record.destinationToken, record.from, 'arrival', block),
    ]);
    return after - before >= BigInt(record.units);
  } catch {
    return now > BigInt(record.destinationBalance);
  }
}
