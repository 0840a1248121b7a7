import { setTimeout as sleep } from 'node:timers/promises';
import { isFinalPurchaseState } from '../../schemas/onramp.ts';
import type { Order, Stablecoin } from '../../schemas/orders.ts';
import type { ChangeSignal, StatusBus } from '../state/coordination.ts';
import type { Logger } from '../logger.ts';
import type { Checkouts } from '../payments/checkouts.ts';
import type { PurchaseRecord } from '../state/purchases.ts';
import { PurchaseLease } from './purchase-lease.ts';
import type { Store } from '../state/store.ts';
import type { OrdersClient } from '../upstream/orders-client.ts';
import { UpstreamError } from '../upstream/upstream-error.ts';
import type { OnrampSettings } from './onramp-settings.ts';
import { latestBlock } from './mint-finder.ts';
import type { PurchaseMoves, Step } from './purchase-moves.ts';

/** Every purchase's checkout has this reference prefix: payment changes of other checkouts are passed over. */
export const PURCHASE_REFERENCE = 'ONRAMP ';
/** A purchase whose checkout was never written (a crash between the two) is given this long. */
const ORPHAN_AFTER_MS = 60_000;
/** Following a new order closely: the first read soon, then less often, for this long in one go. */
const FOLLOW_FIRST_MS = 50;
const FOLLOW_MAX_MS = 2_000;
const FOLLOW_CLOSELY_MS = 60_000;
/** An order the issuer completed whose mint the chain does not show after this long: delayed. */
const COMPLETED_UNSEEN_MS = 120_000;
/** Purchases looked over per sweep, of those with work due and of those awaiting payment. */
const SWEEP_BATCH = 500;
/** A late order is looked at less often the older it is: a tenth of its age, from a second to a minute. */
const lookWaitMs = (age: number) => Math.min(60_000, Math.max(1_000, Math.round(age / 10)));

export interface MintWorkerOptions {
  settings: OnrampSettings;
  store: Store;
  checkouts: Checkouts;
  orders: OrdersClient;
  /** How purchases change state (purchase-moves.ts), shared with the operator's actions. */
  moves: PurchaseMoves;
  bus: StatusBus;
  changes: ChangeSignal;
  logger: Logger;
  /** This instance's worker, as a purchase's lease holder (each operator request is another). */
  holder: string;
  rpcTimeoutMs: number;
  /** How often unfinished purchases are looked over (2 s). */
  sweepMs?: number;
}

/**
 * Turns paid purchases into mints, exactly once. A purchase becomes `paid` only when its checkout's
 * payment is COMPLETED in the store, which only a verified re-read sets. Then, under a lease (one
 * instance at a time), the worker orders the mint with a `customerOrder` derived from the purchase
 * and its attempt (the order service refuses a second order under the same name), follows the order,
 * and confirms the mint on the chain itself. Woken by payment changes on the status bus, and sweeping
 * every unfinished purchase, so neither a restart nor a missed message loses a purchase.
 */
export class MintWorker {
  private readonly running = new Map<string, { again: boolean; done: Promise<void> }>();
  private timer: NodeJS.Timeout | undefined;
  private unsubscribe: (() => void) | undefined;
  private stopped = false;

  private readonly moves: PurchaseMoves;

  constructor(private readonly options: MintWorkerOptions) {
    this.moves = options.moves;
  }

  start(): void {
    this.unsubscribe = this.options.bus.subscribeAll((view) => {
      if (view.checkoutId && view.reference.startsWith(PURCHASE_REFERENCE)) void this.wakeCheckout(view.checkoutId);
    });
    const sweep = () => void this.sweep();
    sweep();
    this.timer = setInterval(sweep, this.options.sweepMs ?? 2_000);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    this.unsubscribe?.();
    await Promise.all([...this.running.values()].map((run) => run.done));
  }

  /** Works on a purchase now (one run at a time per purchase; a wake during a run runs it again after). */
  wake(purchaseId: string): Promise<void> {
    const running = this.running.get(purchaseId);
    if (running) {
      running.again = true;
      return running.done;
    }
    const run = { again: false, done: Promise.resolve() };
    run.done = (async () => {
      try {
        do {
          run.again = false;
          await this.advance(purchaseId);
        } while (run.again && !this.stopped);
      } catch (error) {
        this.options.logger.warn('on-ramp purchase step failed; the sweep tries again', { purchaseId, error });
      } finally {
        this.running.delete(purchaseId);
      }
    })();
    this.running.set(purchaseId, run);
    return run.done;
  }

  /** A purchase's payment changed: its streams show the payment's status, and a completed one is minted. */
  private async wakeCheckout(checkoutId: string): Promise<void> {
    try {
      const purchase = await this.options.store.purchases.byCheckout(checkoutId);
      if (!purchase) return;
      await this.options.changes.publish(purchase.purchaseId);
      await this.wake(purchase.purchaseId);
    } catch (error) {
      this.options.logger.warn('on-ramp: a payment change could not be matched to a purchase', { checkoutId, error });
    }
  }

  /**
   * Wakes the purchases with work due (paid, and minting or delayed ones due a look) first, whatever
   * the number awaiting payment; then those awaiting payment, whose payment may have been missed.
   */
  private async sweep(): Promise<void> {
    if (this.stopped) return;
    try {
      const { purchases } = this.options.store;
      const now = Date.now();
      for (const purchase of await purchases.due(now, SWEEP_BATCH)) void this.wake(purchase.purchaseId);
      for (const purchase of await purchases.unsettled(['awaiting_payment'], SWEEP_BATCH))
        void this.wake(purchase.purchaseId);
      if (Math.random() < 0.01) await purchases.forgetQuotes(now - 24 * 3_600_000);
    } catch (error) {
      this.options.logger.warn('sweep of on-ramp purchases failed', { error });
    }
  }

  /** Moves one purchase as far as it can go now: its mint under its lease, from the purchase read under it. */
  private async advance(purchaseId: string): Promise<void> {
    const { store, holder } = this.options;
    let purchase: Step = await store.purchases.byId(purchaseId);
    if (purchase?.state === 'awaiting_payment') purchase = await this.settlePayment(purchase);
    if (!purchase || isFinalPurchaseState(purchase.state) || purchase.state === 'awaiting_payment') return;
    const lease = await PurchaseLease.take(store.purchases, purchaseId, holder);
    if (!lease) return;
    try {
      purchase = await store.purchases.byId(purchaseId);
      if (purchase?.state === 'paid') purchase = await this.order(purchase, lease);
      if (purchase && (purchase.state === 'minting' || purchase.state === 'delayed'))
        await this.follow(purchase, lease);
    } finally {
      await lease.release();
    }
  }

  /** `awaiting_payment`: paid once the checkout's payment is COMPLETED; failed once nothing can pay it any more. */
  private async settlePayment(purchase: PurchaseRecord): Promise<Step> {
    const { checkouts } = this.options;
    const now = Date.now();
    const checkout = await checkouts.get(purchase.checkoutId);
    if (!checkout) {
      if (now - purchase.createdAt < ORPHAN_AFTER_MS) return purchase;
      return this.moves.move(purchase, ['awaiting_payment'], { state: 'failed' }, 'onramp.failed', null);
    }
    const { attempt, payment } = await checkouts.latest(checkout);
    if (payment?.status === 'COMPLETED')
      return this.moves.move(
        purchase,
        ['awaiting_payment'],
        { state: 'paid', paidAt: now, transactionId: payment.transactionId },
        'onramp.paid',
        'COMPLETED',
      );
    const inFlight = attempt?.state === 'pending' || (payment !== undefined && payment.status === 'PENDING');
    if (checkout.expiresAt <= now && !inFlight)
      return this.moves.move(
        purchase,
        ['awaiting_payment'],
        { state: 'failed' },
        'onramp.failed',
        payment?.status ?? null,
      );
    return purchase;
  }

  /** `paid`: orders the mint, once per attempt, and records the order. */
  private async order(purchase: PurchaseRecord, lease: PurchaseLease): Promise<Step> {
    const { orders, logger } = this.options;
    const target = await this.moves.target(purchase);
    if (!target) return this.moves.delay(purchase, `chain ${purchase.chainId} no longer lists ${purchase.symbol}`);
    const attempt = purchase.orderAttempts + 1;
    const customerOrder = `kassa-onramp-${purchase.purchaseId}-${attempt}`;
    // The mint is looked for from before the order, and from the first order on (a retry may find an earlier one).
    const fromBlock = purchase.fromBlock ?? (await latestBlock(target.chain.rpcUrl, this.rpc()));
    if (purchase.fromBlock === null) {
      const saved = await this.moves.move(purchase, ['paid'], { fromBlock });
      if (!saved || saved.state !== 'paid') return saved;
      purchase = saved;
    }
    if (!(await lease.held())) return purchase;
    let orderId: string;
    try {
      orderId = (
        await orders.create({
          customerName: `Kassa on-ramp ${purchase.purchaseId}`,
          chainId: purchase.chainId,
          amount: purchase.tokens,
          mintWallet: purchase.wallet,
          customerOrder,
          stableCoin: purchase.symbol as Stablecoin,
        })
      ).orderId;
    } catch (error) {
      // Made before by an instance that died before recording it: that order is this purchase's.
      const existing =
        error instanceof UpstreamError && error.failure === 'rejected'
          ? await orders.findByCustomerOrder(customerOrder)
          : undefined;
      if (!existing) {
        if (error instanceof UpstreamError && error.failure === 'rejected')
          return this.moves.delay(purchase, `the order service refused the mint order: ${error.message}`);
        throw error;
      }
      orderId = existing.orderId;
    }
    logger.info('on-ramp mint ordered', { purchaseId: purchase.purchaseId, orderId, customerOrder });
    const now = Date.now();
    return this.moves.move(purchase, ['paid'], {
      state: 'minting',
      orderId,
      customerOrder,
      orderStatus: 'New',
      orderCreatedAt: now,
      orderAttempts: attempt,
      orderIds: purchase.orderIds.includes(orderId) ? purchase.orderIds : [...purchase.orderIds, orderId],
      // Followed closely by this worker from now; by any instance's sweep if this one stops.
      nextLookAt: now + FOLLOW_CLOSELY_MS,
    });
  }

  /**
   * `minting` or `delayed`: looks for the mint on the chain and reads the order; delivered once the
   * mint is there. Closely for the order's first minute (a mint takes seconds), then on the sweep,
   * less and less often.
   */
  private async follow(purchase: PurchaseRecord, lease: PurchaseLease): Promise<void> {
    const started = Date.now();
    let wait = FOLLOW_FIRST_MS;
    for (let current: Step = purchase; ;) {
      current = await this.look(current);
      if (!current || isFinalPurchaseState(current.state) || this.stopped) return;
      if (current.state !== 'minting' || Date.now() - (current.orderCreatedAt ?? started) > FOLLOW_CLOSELY_MS) {
        // The next look, for whichever instance sweeps first (not a change anyone sees: no updatedAt).
        const now = Date.now();
        const age = now - (current.orderCreatedAt ?? current.paidAt ?? now);
        await this.options.store.purchases.update(
          current.purchaseId,
          { states: [current.state], revision: current.revision },
          { nextLookAt: now + lookWaitMs(age) },
        );
        return;
      }
      await sleep(wait);
      wait = Math.min(FOLLOW_MAX_MS, wait * 1.5);
      if (!(await lease.held())) return;
    }
  }

  /** One look at the chain and the order. */
  private async look(purchase: PurchaseRecord): Promise<Step> {
    const target = await this.moves.target(purchase);
    if (!target) return purchase;
    for (const mint of await this.moves.mintsFor(purchase, target)) {
      const delivered = await this.moves.deliver(purchase, mint);
      if (delivered !== 'taken') return delivered;
    }
    let order: Order | undefined;
    try {
      order = purchase.orderId ? await this.options.orders.get(purchase.orderId) : undefined;
    } catch (error) {
      if (!(error instanceof UpstreamError && error.failure === 'rejected')) throw error;
      return this.moves.delay(purchase, `the mint order is gone from the order service (${error.message})`);
    }
    let next: Step = purchase;
    if (order && order.orderStatus !== purchase.orderStatus)
      next = await this.moves.move(purchase, ['minting', 'delayed'], { orderStatus: order.orderStatus });
    if (!next || next.state !== 'minting') return next;
    const now = Date.now();
    if (order?.orderStatus === 'Failed' || order?.orderStatus === 'Cancelled')
      return this.moves.delay(next, `the issuer ended the mint order ${order.orderStatus}`);
    if (order?.orderStatus === 'Completed' && now - (next.orderCreatedAt ?? now) > COMPLETED_UNSEEN_MS)
      return this.moves.delay(next, 'the issuer completed the mint order, but the mint is not on the chain');
    // Counted from the current order: a retried purchase has the whole timeout again.
    const since = next.orderCreatedAt ?? next.paidAt;
    const { mintTimeoutMs } = this.options.settings;
    if (since !== null && now - since > mintTimeoutMs)
      return this.moves.delay(next, `not delivered within ${duration(mintTimeoutMs)} of its mint order`);
    return next;
  }

  private rpc() {
    return { timeoutMs: this.options.rpcTimeoutMs };
  }
}

/** A timeout in words: `10 minutes`, `1 minute`, `45 seconds`. */
function duration(ms: number): string {
  const [amount, unit] = ms % 60_000 === 0 ? [ms / 60_000, 'minute'] : [Math.round(ms / 1000), 'second'];
  return `${amount} ${unit}${amount === 1 ? '' : 's'}`;
}
