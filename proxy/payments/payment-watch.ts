import type { Store } from '../state/store.ts';
import type { PaymentRefresher } from './payment-refresher.ts';

/**
 * Payments someone is watching right now (an SSE stream is open). One timer per payment, however
 * many watchers, asks the refresher whether a re-read is due; the refresher's gate keeps it to the
 * payment's interval.
 */
export class PaymentWatch {
  private readonly watched = new Map<string, { watchers: number; timer: NodeJS.Timeout }>();

  constructor(
    private readonly store: Store,
    private readonly refresher: PaymentRefresher,
    private readonly tickMs = 1_000,
  ) {}

  /** Starts watching; the returned function stops this watcher. */
  watch(transactionId: string): () => void {
    let entry = this.watched.get(transactionId);
    if (!entry) {
      const timer = setInterval(() => void this.tick(transactionId), this.tickMs);
      timer.unref();
      entry = { watchers: 0, timer };
      this.watched.set(transactionId, entry);
    }
    entry.watchers++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const current = this.watched.get(transactionId);
      if (current && --current.watchers === 0) {
        clearInterval(current.timer);
        this.watched.delete(transactionId);
      }
    };
  }

  stop(): void {
    for (const { timer } of this.watched.values()) clearInterval(timer);
    this.watched.clear();
  }

  private async tick(transactionId: string): Promise<void> {
    const payment = await this.store.paymentById(transactionId).catch(() => undefined);
    if (payment) await this.refresher.refreshIfDue(payment, 'watch');
  }
}
