import type { Logger } from '../logger.ts';
import type { Store } from '../state/store.ts';
import type { PaymentRefresher } from './payment-refresher.ts';

export interface FollowerOptions {
  store: Store;
  refresher: PaymentRefresher;
  logger: Logger;
  /** How often the pending payments are looked over. */
  sweepMs?: number;
  /** Payments pending longer than this (30 days) are no longer reconciled: the payment service has expired them. */
  maxAgeMs?: number;
}

/**
 * The safety net for lost webhooks, and what makes a restart lose nothing: first the re-reads that
 * webhooks asked for and the read gate or the budget held back (oldest first), then every pending
 * payment on the reconciliation schedule (refreshInterval), from the first sweep after start, on the
 * budget that new payments do not need.
 */
export class PaymentFollower {
  private timer: NodeJS.Timeout | undefined;
  private sweeping: Promise<void> | undefined;
  /** Payments made before this process started are re-read at once: their webhooks may have been missed. */
  private readonly startedAt = Date.now();
  private readonly seen = new Set<string>();

  constructor(private readonly options: FollowerOptions) {}

  start(): void {
    // One sweep at a time: a slow sweep is not overtaken by the next one.
    const run = () => {
      this.sweeping ??= this.sweep().finally(() => {
        this.sweeping = undefined;
      });
    };
    run();
    this.timer = setInterval(run, this.options.sweepMs ?? 5_000);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.sweeping;
  }

  private async sweep(): Promise<void> {
    const { store, refresher, logger } = this.options;
    const oldest = Date.now() - (this.options.maxAgeMs ?? 30 * 24 * 3600_000);
    try {
      // Each through its payment's read gate, as a webhook's read would; one that fails again stays queued.
      for (const transactionId of await store.reconciliation.queuedRereads(100)) await refresher.queued(transactionId);
      const pending = await store.pendingPayments(1_000);
      for (const payment of pending) {
        if (payment.createdAt < oldest) continue;
        const resume = payment.createdAt < this.startedAt && !this.seen.has(payment.transactionId);
        await refresher.refreshIfDue(payment, 'follow', resume);
        this.seen.add(payment.transactionId);
      }
      const stillPending = new Set(pending.map((payment) => payment.transactionId));
      for (const id of this.seen) if (!stillPending.has(id)) this.seen.delete(id);
    } catch (error) {
      logger.warn('sweep of pending payments failed', { error });
    }
  }
}
