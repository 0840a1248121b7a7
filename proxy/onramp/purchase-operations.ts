import { setTimeout as sleep } from 'node:timers/promises';
import { ConflictError, NotFoundError, upstreamFailure } from '../domain/domain-errors.ts';
import type { Logger } from '../logger.ts';
import type { PurchaseAuditRecord, PurchaseChange, PurchaseRecord } from '../state/purchases.ts';
import type { Store } from '../state/store.ts';
import type { OrdersClient } from '../upstream/orders-client.ts';
import type { MintWorker } from './mint-worker.ts';
import type { PurchaseMoves } from './purchase-moves.ts';
import { leaseHolders, PurchaseLease } from './purchase-lease.ts';

export interface PurchaseOperationsOptions {
  store: Store;
  orders: OrdersClient;
  moves: PurchaseMoves;
  /** Woken for a purchase set to be minted again. */
  worker: MintWorker;
  logger: Logger;
  /** This instance, named in the lease holder of each of its operator requests. */
  instance: string;
}

/** What an operator told "being worked on" waits before trying again. */
const BUSY_RETRY_AFTER_SECONDS = 2;
/** The worker's look at a delayed purchase is brief: an action waits this long for it to end. */
const WORKER_WAIT_MS = 1_000;
const WORKER_POLL_MS = 50;

/**
 * What the operator does with a delayed purchase: retry the mint, or record that the money went back.
 * Neither may ever cause a second mint: each first looks at the chain (a mint of one of its orders
 * there delivers the purchase instead), and at the current order (a `New` one is cancelled; one the
 * issuer is processing or has completed stops the action). Each request holds the purchase's lease
 * for all of its steps, as a holder of its own (another action is refused meanwhile), and
 * applies its change only if the purchase is still as it read it: the same revision, the same order.
 * Both are audited.
 */
export class PurchaseOperations {
  constructor(private readonly options: PurchaseOperationsOptions) {}

  retryMint(purchaseId: string, requestId: string | null): Promise<PurchaseRecord> {
    return this.act(purchaseId, 'retry-mint', null, requestId, {
      state: 'paid',
      orderId: null,
      customerOrder: null,
      orderStatus: null,
      orderCreatedAt: null,
      delayedReason: null,
      nextLookAt: null,
    });
  }

  refund(purchaseId: string, note: string, requestId: string | null): Promise<PurchaseRecord> {
    return this.act(purchaseId, 'refund', note, requestId, { state: 'refunded' });
  }

  /** The checks both actions share, then the action's change: all under the purchase's lease. */
  private async act(
    purchaseId: string,
    action: PurchaseAuditRecord['action'],
    note: string | null,
    requestId: string | null,
    change: PurchaseChange & Pick<PurchaseRecord, 'state'>,
  ): Promise<PurchaseRecord> {
    const { store, moves, worker, logger, instance } = this.options;
    delayedOnly(await store.purchases.byId(purchaseId));
    const lease = await this.lease(purchaseId, leaseHolders.operator(instance));
    let done: PurchaseRecord;
    try {
      // Read again under the lease: the purchase as this action decides on it, and expects to find it.
      const purchase = delayedOnly(await store.purchases.byId(purchaseId));
      const audit: PurchaseAuditRecord = {
        action,
        note,
        at: Date.now(),
        previousState: purchase.state,
        state: purchase.state,
        requestId,
      };
      // A mint of one of its orders already on the chain: the purchase is delivered, and nothing more is done.
      for (const mint of await moves.mintsFor(purchase)) {
        const delivered = await moves.deliver(purchase, mint, {
          ...audit,
          note: `${note ? `${note}; ` : ''}the mint was found on the chain (${mint.txHash}): nothing more was done`,
        });
        if (delivered !== 'taken') {
          if (action === 'refund')
            throw new ConflictError(`The tokens were delivered (${mint.txHash}): a delivered purchase is not refunded`);
          return delivered ?? purchase;
        }
      }
      await this.stopOrder(purchase);
      if (!(await lease.held())) throw busy();
      const result = await store.purchases.update(
        purchaseId,
        { states: ['delayed'], revision: purchase.revision, orderId: purchase.orderId },
        { ...change, updatedAt: Date.now() },
        { audit: { ...audit, state: change.state } },
      );
      if (result.outcome !== 'updated')
        throw new ConflictError(`The purchase changed meanwhile (it was ${purchase.state}); look again`);
      done = result.purchase;
    } finally {
      await lease.release();
    }
    logger.info(`on-ramp purchase: ${action}`, { purchaseId, requestId, state: done.state });
    if (done.state === 'paid') void worker.wake(purchaseId);
    return done;
  }

  /**
   * The purchase's lease for this request. Another operator action on it is refused at once ("being
   * worked on"); the worker's look, which is brief, is waited out a moment first.
   */
  private async lease(purchaseId: string, holder: string): Promise<PurchaseLease> {
    const { purchases } = this.options.store;
    const until = Date.now() + WORKER_WAIT_MS;
    for (;;) {
      const lease = await PurchaseLease.take(purchases, purchaseId, holder);
      if (lease) return lease;
      const current = await purchases.leaseHolder(purchaseId, Date.now());
      if ((current !== null && leaseHolders.isOperator(current)) || Date.now() >= until) throw busy();
      await sleep(WORKER_POLL_MS);
    }
  }

  /** Makes sure the current order cannot mint any more: cancelled if New; otherwise it must have failed. */
  private async stopOrder(purchase: PurchaseRecord): Promise<void> {
    if (!purchase.orderId) return;
    const { orders } = this.options;
    let status: string;
    try {
      status = (await orders.get(purchase.orderId)).orderStatus;
      if (status === 'New')
        status = (await orders.update(purchase.orderId, { orderStatus: 'Cancelled' })).updatedAttributes.orderStatus;
    } catch (error) {
      // An order the service no longer knows cannot mint.
      if (error instanceof Error && /Order not found/.test(error.message)) return;
      throw upstreamFailure(error, 'client');
    }
    if (status === 'Processing')
      throw new ConflictError(
        'The issuer is still processing the mint order: wait for it to end, or ask the issuer to fail it',
      );
    if (status === 'Completed')
      throw new ConflictError(
        'The issuer completed the mint order but its mint is not on the chain yet: a second order could mint twice; ask the issuer',
      );
  }
}

function delayedOnly(purchase: PurchaseRecord | undefined): PurchaseRecord {
  if (!purchase) throw new NotFoundError('No purchase has this id');
  if (purchase.state !== 'delayed')
    throw new ConflictError(`Only a delayed purchase can be acted on; this one is ${purchase.state}`);
  return purchase;
}

const busy = () =>
  new ConflictError(
    'The purchase is being worked on right now (another action on it, or the mint worker): try again in a moment',
    { retryAfterSeconds: BUSY_RETRY_AFTER_SECONDS },
  );
