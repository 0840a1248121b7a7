import { setTimeout as sleep } from 'node:timers/promises';
import { getAddress, id, Wallet, type Log } from 'ethers';
import { toUnits } from '../../lib/money.ts';
import { STABLECOINS, type Order, type Stablecoin } from '../../schemas/orders.ts';
import { KeyedSerial } from './keyed-serial.ts';
import type { LocalChain, LocalChains } from './local-chains.ts';
import { waitForReceipt } from './provider.ts';
import { decodeRevert, errorMessage } from './revert.ts';
import { RELAYER_PRIVATE_KEY, TOKEN_DECIMALS } from './stablecoins.ts';
import { TOKEN_INTERFACE } from './token-interface.ts';

/** One mint the relayer owes: for a burn elsewhere, a refund of a burn here, or a completed order. */
interface Settlement {
  chain: LocalChain;
  token: string;
  to: string;
  amount: bigint;
  burnId: string;
  reason: 'reforge' | 'refund' | 'order';
}

const BURN_TOPIC = TOKEN_INTERFACE.getEvent('ReforgeBurn')!.topicHash;
/** How often each chain is asked for new blocks. */
const POLL_INTERVAL_MS = 100;
const MAX_BLOCKS_PER_SCAN = 5_000;
const MAX_ATTEMPTS = 8;
const MAX_RETRY_DELAY_MS = 5_000;
const RECEIPT_TIMEOUT_MS = 30_000;
// Gas estimates are exact for the state they ran on; the margin absorbs a change before mining.
const GAS_MARGIN_PERCENT = 120n;

/**
 * The emulator's bridge: watches every chain for `ReforgeBurn` and mints the same amount of the same
 * stablecoin to the same address on the destination chain with `reforgeMint`. A burn whose
 * destination the emulator does not serve (unknown chain, another network, a token that is not the
 * same stablecoin there) is refunded on its own chain under the same burn id. The contract settles
 * each burn id at most once, so rescanning after a restart or retrying a failed mint never mints twice.
 */
export class Relayer {
  private readonly wallet = new Wallet(RELAYER_PRIVATE_KEY);
  /** One relayer transaction at a time per chain: each takes the nonce the previous one left. */
  private readonly serial = new KeyedSerial();
  private readonly settling = new Map<string, Promise<boolean>>();
  /** Settlements this run has mined (chain, token, burn id). */
  private readonly settled = new Set<string>();
  private readonly watchers: Promise<void>[] = [];
  private readonly halt = new AbortController();
  /** Chains whose incoming mints wait (a control, so delays and refunds can be staged). */
  private readonly held = new Set<number>();
  /** Burns waiting for a held chain, by burn id: each can still be minted, or refunded instead. */
  private readonly waiting = new Map<string, { mint: Settlement; refund: Settlement }>();
  /** Burns refunded by force: never minted on their destination, even once it is released. */
  private readonly refunded = new Set<string>();

  constructor(private readonly chains: LocalChains) {}

  get address(): string {
    return this.wallet.address;
  }

  start(): void {
    for (const chain of this.chains.chains) this.watchers.push(this.watch(chain));
  }

  /** Stops watching, abandons retries waiting for their turn, and waits for mints already sent. */
  async stop(): Promise<void> {
    this.halt.abort();
    await Promise.all(this.watchers);
    await Promise.all(this.settling.values());
  }

  /**
   * Mints an order's tokens to its wallet; true once the mint is mined (or was before). The burn id
   * is derived from the order id, so an order mints once however often this is called.
   */
  mintForOrder(order: Pick<Order, 'orderId' | 'chainId' | 'stableCoin' | 'mintWallet' | 'amount'>): Promise<boolean> {
    const chain = this.chains.byId(order.chainId);
    const token = (STABLECOINS as readonly string[]).includes(order.stableCoin)
      ? chain?.tokens[order.stableCoin as Stablecoin]
      : undefined;
    if (!chain || !token) {
      log('error', 'order cannot be minted: chain or stablecoin not served', {
        orderId: order.orderId,
        chainId: order.chainId,
        stableCoin: order.stableCoin,
      });
      return Promise.resolve(false);
    }
    return this.settle({
      chain,
      token: token.address,
      to: order.mintWallet,
      amount: toUnits(order.amount, TOKEN_DECIMALS),
      burnId: id(`kassa-order:${order.orderId}`),
      reason: 'order',
    });
  }

  /** Holds the mints for burns bound to `chainId` until `release` (or `refund`). */
  hold(chainId: number): void {
    this.held.add(chainId);
  }

  /** Mints what was held for `chainId`, and mints for it as they come from now on. */
  release(chainId: number): void {
    this.held.delete(chainId);
    for (const [burnId, { mint }] of this.waiting)
      if (mint.chain.chainId === chainId) {
        this.waiting.delete(burnId);
        void this.settle(mint);
      }
  }

  /**
   * Refunds a held burn on its own chain, under the same burn id, as the bridge does with a burn it
   * cannot deliver; false when no burn with this id is waiting.
   */
  refund(burnId: string): boolean {
    const key = burnId.toLowerCase();
    const waiting = this.waiting.get(key);
    if (!waiting) return false;
    this.waiting.delete(key);
    this.refunded.add(key);
    void this.settle(waiting.refund);
    return true;
  }

  /** The held chains, and the burns waiting for them. */
  holding() {
    return {
      held: [...this.held].sort((a, b) => a - b),
      waiting: [...this.waiting.values()].map(({ mint, refund }) => ({
        burnId: mint.burnId,
        from: mint.to,
        amount: mint.amount.toString(),
        sourceChainId: refund.chain.chainId,
        destinationChainId: mint.chain.chainId,
      })),
    };
  }

  /** Scans one chain from `fromBlock` up to its head (or a bounded range); the next block to scan. */
  async scan(chain: LocalChain, fromBlock: number): Promise<number> {
    const head = await chain.provider.getBlockNumber();
    if (head < fromBlock) return fromBlock;
    const toBlock = Math.min(head, fromBlock + MAX_BLOCKS_PER_SCAN - 1);
    const logs = await chain.provider.getLogs({
      address: Object.values(chain.tokens).map((token) => token.address),
      topics: [BURN_TOPIC],
      fromBlock,
      toBlock,
    });
    for (const entry of logs) this.onBurn(chain, entry);
    return toBlock + 1;
  }

  /** Scans from genesis: what a previous run already minted is skipped as AlreadySettled. */
  private async watch(chain: LocalChain): Promise<void> {
    let next = 0;
    let failing = false;
    while (!this.halt.signal.aborted) {
      try {
        next = await this.scan(chain, next);
        failing = false;
      } catch (error) {
        // Logged once per outage, not every 100 ms.
        if (!failing && !this.halt.signal.aborted)
          log('error', 'relayer cannot read the chain', { chainId: chain.chainId, error: errorMessage(error) });
        failing = true;
      }
      await this.pause(POLL_INTERVAL_MS);
    }
  }

  private onBurn(chain: LocalChain, entry: Log): void {
    const source = this.chains.byToken(entry.address);
    const event = TOKEN_INTERFACE.parseLog(entry);
    if (!source || !event) return;
    const { from, amount, destinationChainId, destinationToken, burnId } = event.args as unknown as {
      from: string;
      amount: bigint;
      destinationChainId: bigint;
      destinationToken: string;
      burnId: string;
    };
    const destination =
      destinationChainId <= BigInt(Number.MAX_SAFE_INTEGER) ? this.chains.byId(Number(destinationChainId)) : undefined;
    const served =
      destination !== undefined &&
      destination !== chain &&
      destination.network === chain.network &&
      destination.tokens[source.symbol].address === getAddress(destinationToken);
    const refund: Settlement = { chain, token: entry.address, to: from, amount, burnId, reason: 'refund' };
    if (served) {
      const mint: Settlement = {
        chain: destination,
        token: destination.tokens[source.symbol].address,
        to: from,
        amount,
        burnId,
        reason: 'reforge',
      };
      const key = burnId.toLowerCase();
      if (this.refunded.has(key)) return;
      if (this.held.has(destination.chainId)) this.waiting.set(key, { mint, refund });
      else void this.settle(mint);
      return;
    }
    log('warn', 'reforge burn refunded: destination not served', {
      chainId: chain.chainId,
      token: entry.address,
      destinationChainId: destinationChainId.toString(),
      destinationToken,
      burnId,
    });
    void this.settle(refund);
  }

  /** Mints once per burn id: a settlement in flight is joined, one done is not sent again. */
  private settle(settlement: Settlement): Promise<boolean> {
    const key = `${settlement.chain.chainId}:${settlement.token}:${settlement.burnId}`;
    if (this.settled.has(key)) return Promise.resolve(true);
    const inFlight = this.settling.get(key);
    if (inFlight) return inFlight;
    const minting = this.mintWithRetries(settlement).then((minted) => {
      this.settling.delete(key);
      if (minted) this.settled.add(key);
      return minted;
    });
    this.settling.set(key, minting);
    return minting;
  }

  /** Never rejects: failures are retried with growing pauses, then given up on loudly (false). */
  private async mintWithRetries(settlement: Settlement): Promise<boolean> {
    for (let attempt = 1; !this.halt.signal.aborted; attempt++) {
      try {
        await this.mint(settlement);
        return true;
      } catch (error) {
        if (this.halt.signal.aborted) return false;
        const fields = {
          reason: settlement.reason,
          chainId: settlement.chain.chainId,
          burnId: settlement.burnId,
          attempt,
          error: errorMessage(error),
        };
        if (attempt >= MAX_ATTEMPTS) {
          log('error', 'relayer gave up on a mint; a restart rescans and tries again', fields);
          return false;
        }
        log('warn', 'relayer mint failed; retrying', fields);
        await this.pause(Math.min(MAX_RETRY_DELAY_MS, 100 * 2 ** attempt));
      }
    }
    return false;
  }

  private async mint({ chain, token, to, amount, burnId }: Settlement): Promise<void> {
    const { provider } = chain;
    const data = TOKEN_INTERFACE.encodeFunctionData('reforgeMint', [to, amount, burnId]);
    const hash = await this.serial.run(String(chain.chainId), async () => {
      let gas: bigint;
      try {
        gas = await provider.estimateGas({ from: this.wallet.address, to: token, data });
      } catch (error) {
        // Minted before (by an earlier run of the relayer, or an earlier attempt): nothing to do.
        if (decodeRevert(error)?.name === 'AlreadySettled') return undefined;
        throw error;
      }
      const [nonce, fees] = await Promise.all([
        provider.getTransactionCount(this.wallet.address, 'pending'),
        provider.getFeeData(),
      ]);
      const signed = await this.wallet.signTransaction({
        type: 2,
        chainId: chain.chainId,
        to: token,
        data,
        nonce,
        gasLimit: (gas * GAS_MARGIN_PERCENT) / 100n,
        maxFeePerGas: fees.maxFeePerGas,
        maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
      });
      return (await provider.send('eth_sendRawTransaction', [signed])) as string;
    });
    if (hash === undefined) return;
    const receipt = await waitForReceipt(provider, hash, RECEIPT_TIMEOUT_MS, () => this.halt.signal.aborted);
    if (receipt.status !== 1) throw new Error(`reforgeMint ${hash} reverted`);
  }

  /** Waits, or stops waiting at once when the relayer stops. */
  private pause(ms: number): Promise<void> {
    return sleep(ms, undefined, { signal: this.halt.signal }).catch(() => undefined);
  }
}

function log(level: 'warn' | 'error', msg: string, fields: Record<string, unknown>): void {
  console.error(JSON.stringify({ level, msg, ...fields }));
}
