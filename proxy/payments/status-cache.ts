import type { PaymentStatusView } from '../../schemas/proxy-api.ts';
import type { StatusBus } from '../state/coordination.ts';
import type { Payment } from '../state/store.ts';

interface Entry {
  payment: Payment;
  view: PaymentStatusView;
  /** The view as sent, serialised once per entry rather than once per read. */
  json: string;
  until: number;
}

/**
 * Status reads are the hot path (pollers, reconnecting streams), so the last answer per status token
 * is kept for a moment. Every visible change goes through the status bus, which reaches every
 * instance and drops the entry at once; the short lifetime bounds what a missed message could cost.
 */
export class StatusCache {
  private readonly entries = new Map<string, Entry>();
  private readonly tokens = new Map<string, string>();

  constructor(
    bus: StatusBus,
    private readonly ttlMs = 1_000,
    private readonly maxEntries = 50_000,
  ) {
    bus.subscribeAll((view) => this.forget(view.transactionId));
  }

  get(statusToken: string): Omit<Entry, 'until'> | undefined {
    const entry = this.entries.get(statusToken);
    if (entry && entry.until > Date.now()) return entry;
    if (entry) this.forget(entry.payment.transactionId);
    return undefined;
  }

  set(payment: Payment, view: PaymentStatusView): Omit<Entry, 'until'> {
    if (this.entries.size >= this.maxEntries) {
      // Maps keep insertion order: the first key is the oldest entry.
      const oldest = this.entries.keys().next().value as string;
      this.forget(this.entries.get(oldest)!.payment.transactionId);
    }
    const entry = { payment, view, json: JSON.stringify(view), until: Date.now() + this.ttlMs };
    this.entries.set(payment.statusToken, entry);
    this.tokens.set(payment.transactionId, payment.statusToken);
    return entry;
  }

  forget(transactionId: string): void {
    const token = this.tokens.get(transactionId);
    if (token === undefined) return;
    this.tokens.delete(transactionId);
    this.entries.delete(token);
  }
}
