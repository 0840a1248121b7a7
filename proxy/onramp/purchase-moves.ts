import type { PurchaseState } from '../../schemas/onramp.ts';
import type { Logger } from '../logger.ts';
import type { ChangeSignal } from '../state/coordination.ts';
import type { PurchaseAuditRecord, PurchaseChange, PurchaseRecord } from '../state/purchases.ts';
import type { Store } from '../state/store.ts';
import type { DeliveryTarget, OnrampCatalog } from './onramp-catalog.ts';
import { findMints, type Mint } from './mint-finder.ts';
import type { OnrampMetrics } from './onramp-metrics.ts';
import { purchaseEvent } from './purchase-events.ts';

export interface PurchaseMovesOptions {
  store: Store;
  catalog: OnrampCatalog;
  changes: ChangeSignal;
  logger: Logger;
  rpcTimeoutMs: number;
  /** Called when events were written, so that the deliverer sends them now. */
  eventsWritten?: () => void;
  metrics?: OnrampMetrics;
}

/** A purchase as it is after a move (as another moved it, when it was moved meanwhile); undefined: gone. */
export type Step = PurchaseRecord | undefined;

/**
 * How a purchase changes state, for the mint worker and the operator's actions alike: only from the
 * state (and revision) it was read in, its merchant event written in the same step, its streams told;
 * delivered by a mint of one of its own orders found on the chain, delayed with a reason.
 */
export class PurchaseMoves {
  constructor(private readonly options: PurchaseMovesOptions) {}

  /**
   * The mints of this purchase's orders on the chain (the current one's, or a late one of an earlier
   * order), oldest first, from the block before its first order. The store still refuses a
   * transaction that already delivered another purchase.
   */
  async mintsFor(purchase: PurchaseRecord, target?: DeliveryTarget): Promise<Mint[]> {
    const where = target ?? (await this.target(purchase));
    if (!where || purchase.fromBlock === null) return [];
    return findMints(
      {
        rpcUrl: where.chain.rpcUrl,
        token: where.token.address,
        decimals: where.token.decimals,
        wallet: purchase.wallet,
        amount: purchase.tokens,
        orderIds: purchase.orderIds,
        fromBlock: purchase.fromBlock,
      },
      this.rpc(),
    );
  }

  /** Delivered with this mint; `taken` when the mint is another purchase's. */
  async deliver(purchase: PurchaseRecord, mint: Mint, audit?: PurchaseAuditRecord): Promise<Step | 'taken'> {
    // The mint of one of its own orders delivers it, whatever else changed since it was read.
    const result = await this.options.store.purchases.update(
      purchase.purchaseId,
      { states: ['paid', 'minting', 'delayed'] },
      {
        state: 'delivered',
        txHash: mint.txHash,
        blockNumber: mint.blockNumber,
        deliveredAt: Date.now(),
        delayedReason: null,
        updatedAt: Date.now(),
      },
      {
        events: purchaseEvent('onramp.delivered', {
          paymentStatus: 'COMPLETED',
          explorer: (await this.target(purchase))?.chain.blockExplorerUrl,
        }),
        ...(audit ? { audit: { ...audit, state: 'delivered' as const } } : {}),
      },
    );
    if (result.outcome === 'tx-taken') return 'taken';
    if (result.outcome === 'moved') return result.purchase;
    this.options.eventsWritten?.();
    this.options.metrics?.delivered(result.purchase.paidAt, result.purchase.deliveredAt ?? Date.now());
    await this.options.changes.publish(purchase.purchaseId).catch(() => undefined);
    this.options.logger.info('on-ramp delivered', { purchaseId: purchase.purchaseId, txHash: mint.txHash });
    return result.purchase;
  }

  /** Delayed, for the operator to see why (once per reason). */
  async delay(purchase: PurchaseRecord, reason: string): Promise<Step> {
    if (purchase.state === 'delayed' && purchase.delayedReason === reason) return purchase;
    this.options.logger.warn('on-ramp purchase delayed', { purchaseId: purchase.purchaseId, reason });
    return this.move(purchase, ['paid', 'minting', 'delayed'], { state: 'delayed', delayedReason: reason });
  }

  /** Applies a change if the purchase is still as it was read (its revision); signals its streams. */
  async move(
    purchase: PurchaseRecord,
    from: readonly PurchaseState[],
    change: PurchaseChange,
    event?: 'onramp.paid' | 'onramp.delivered' | 'onramp.failed',
    paymentStatus: string | null = null,
  ): Promise<Step> {
    const { store, changes } = this.options;
    const explorer = event ? (await this.target(purchase))?.chain.blockExplorerUrl : undefined;
    const result = await store.purchases.update(
      purchase.purchaseId,
      { states: from, revision: purchase.revision },
      { ...change, updatedAt: Date.now() },
      event ? { events: purchaseEvent(event, { paymentStatus, explorer }) } : {},
    );
    if (result.outcome !== 'updated') return result.outcome === 'moved' ? result.purchase : purchase;
    if (event) this.options.eventsWritten?.();
    if (change.state) await changes.publish(purchase.purchaseId).catch(() => undefined);
    return result.purchase;
  }

  /** Where the purchase is delivered, from the chains' listing; undefined while the listing cannot be read. */
  async target(purchase: PurchaseRecord): Promise<DeliveryTarget | undefined> {
    try {
      return await this.options.catalog.offerFor(purchase.chainId, purchase.symbol);
    } catch {
      return undefined;
    }
  }

  private rpc() {
    return { timeoutMs: this.options.rpcTimeoutMs };
  }
}
