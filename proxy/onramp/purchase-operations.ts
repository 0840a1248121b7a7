import { HttpProblem } from '../http/http-problem.ts';
import type { Logger } from '../logger.ts';
import type { PurchaseAuditRecord, PurchaseRecord } from '../state/purchases.ts';
import type { Store } from '../state/store.ts';
import type { OrdersClient } from '../upstream/orders-client.ts';
import { upstreamProblem } from '../http/upstream-problem.ts';
import type { MintWorker } from './mint-worker.ts';

export interface PurchaseOperationsOptions {
  store: Store;
  orders: OrdersClient;
  worker: MintWorker;
  logger: Logger;
  holder: string;
}

/**
 * What the operator does with a delayed purchase: retry the mint, or record that the money went back.
 * Neither may ever cause a second mint: each first looks at the chain (a mint there delivers the
 * purchase instead), and at the current order (a `New` one is cancelled; one the issuer is
 * processing or has completed stops the action). Both are audited.
 */
export class PurchaseOperations {
  constructor(private readonly options: PurchaseOperationsOptions) {}

  async retryMint(purchaseId: string, requestId: string | null): Promise<PurchaseRecord> {
    return this.act(purchaseId, 'retry-mint', null, requestId, async (purchase, audit) => {
      const result = await this.options.store.purchases.update(
        purchaseId,
        ['delayed'],
        {
          state: 'paid',
          orderId: null,
          customerOrder: null,
          orderStatus: null,
          orderCreatedAt: null,
          delayedReason: null,
          updatedAt: Date.now(),
        },
        { audit: { ...audit, state: 'paid' } },
      );
      return result.outcome === 'updated' ? result.purchase : this.moved(purchase);
    });
  }

  async refund(purchaseId: string, note: string, requestId: string | null): Promise<PurchaseRecord> {
    return this.act(purchaseId, 'refund', note, requestId, async (purchase, audit) => {
      const result = await this.options.store.purchases.update(
        purchaseId,
        ['delayed'],
        { state: 'refunded', updatedAt: Date.now() },
        { audit: { ...audit, state: 'refunded' } },
      );
      return result.outcome === 'updated' ? result.purchase : this.moved(purchase);
    });
  }

  /** The checks both actions share, under the purchase's lease; then the action itself. */
  private async act(
    purchaseId: string,
    action: PurchaseAuditRecord['action'],
    note: string | null,
    requestId: string | null,
    apply: (purchase: PurchaseRecord, audit: PurchaseAuditRecord) => Promise<PurchaseRecord>,
  ): Promise<PurchaseRecord> {
    const { store, worker, holder, logger } = this.options;
    const purchase = await store.purchases.byId(purchaseId);
    if (!purchase) throw new HttpProblem(404, 'No purchase has this id');
    if (purchase.state !== 'delayed')
      throw new HttpProblem(409, `Only a delayed purchase can be acted on; this one is ${purchase.state}`);
    if (!(await store.purchases.lease(purchaseId, holder, Date.now(), 30_000)))
      throw new HttpProblem(409, 'The purchase is being worked on right now; try again in a moment', {
        'Retry-After': '5',
      });
    let done: PurchaseRecord;
    try {
      const audit: PurchaseAuditRecord = {
        action,
        note,
        at: Date.now(),
        previousState: purchase.state,
        state: purchase.state,
        requestId,
      };
      // A mint already on the chain: the purchase is delivered, and nothing more is done.
      for (const mint of await worker.mintsFor(purchase)) {
        const delivered = await worker.deliver(purchase, mint, {
          ...audit,
          note: `${note ? `${note}; ` : ''}the mint was found on the chain (${mint.txHash}): nothing more was done`,
        });
        if (delivered !== 'taken') {
          if (action === 'refund')
            throw new HttpProblem(
              409,
              `The tokens were delivered (${mint.txHash}): a delivered purchase is not refunded`,
            );
          return delivered ?? purchase;
        }
      }
      await this.stopOrder(purchase);
      done = await apply(purchase, audit);
    } finally {
      await store.purchases.unlease(purchaseId, holder).catch(() => undefined);
    }
    logger.info(`on-ramp purchase: ${action}`, { purchaseId, requestId, state: done.state });
    if (done.state === 'paid') void worker.wake(purchaseId);
    return done;
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
      throw upstreamProblem(error, 'client');
    }
    if (status === 'Processing')
      throw new HttpProblem(
        409,
        'The issuer is still processing the mint order: wait for it to end, or ask the issuer to fail it',
      );
    if (status === 'Completed')
      throw new HttpProblem(
        409,
        'The issuer completed the mint order but its mint is not on the chain yet: a second order could mint twice; ask the issuer',
      );
  }

  private moved(purchase: PurchaseRecord): never {
    throw new HttpProblem(409, `The purchase changed meanwhile (it was ${purchase.state}); look again`);
  }
}
