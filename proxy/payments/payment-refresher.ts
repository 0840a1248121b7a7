import { isTerminalStatus, type PaymentRecord } from '../../schemas/pay.ts';
import type { ReadGate, StatusBus } from '../coordination/coordination.ts';
import type { Logger } from '../logger.ts';
import type { PaymentEventRule } from '../store/outbox.ts';
import type { Payment, PaymentUpdate, Store } from '../store/store.ts';
import type { PayClient } from '../upstream/pay-client.ts';
import { UpstreamError } from '../upstream/upstream-error.ts';
import { statusView } from './status-view.ts';

/** Why a payment is re-read: a webhook, a watching page, the follower, or a webhook's queued re-read. */
export type RefreshReason = 'webhook' | 'watch' | 'follow' | 'queued';

/** However many browsers watch a payment, it is re-read at most this often on their account. */
export const MIN_WATCH_INTERVAL_MS = 5_000;

/**
 * The reconciliation schedule of payments nobody watches (the safety net for lost webhooks): by age,
 * every 30 s for the first 10 minutes, then every 5 minutes, hourly after 2 hours, daily after a day.
 */
export const RECONCILE_STEPS = [
  { below: 600_000, every: 30_000 },
  { below: 7_200_000, every: 300_000 },
  { below: 86_400_000, every: 3_600_000 },
  { below: Infinity, every: 86_400_000 },
] as const;

/**
 * How often a pending payment is worth re-reading: often while the customer is likely at the bank,
 * rarely once it has been pending a while. Watched payments: every 5 s to 60 s; unwatched ones on the
 * reconciliation schedule.
 */
export function refreshInterval(payment: Payment, watched: boolean, now = Date.now()): number {
  const age = now - payment.createdAt;
  if (watched) return clamp(age / 4, MIN_WATCH_INTERVAL_MS, 60_000);
  return RECONCILE_STEPS.find((step) => age < step.below)!.every;
}

const clamp = (value: number, min: number, max: number) => Math.min(max, Math.max(min, value));

/**
 * The only way a payment's status changes in the proxy: by reading it from the payment service.
 * Webhooks are unsigned, so they are hints that trigger a read, never a status in themselves; watchers and the follower trigger reads
 * too, gated so that one payment is not read more than once per interval however many ask.
 */
export class PaymentRefresher {
  private readonly inFlight = new Map<string, Promise<void>>();
  /**
   * When this instance may next ask the (possibly fleet-wide) gate about a payment: a hot status-read
   * path would otherwise ask Redis on every request, to be told no almost every time.
   */
  private readonly nextAsk = new Map<string, number>();

  constructor(
    private readonly options: {
      store: Store;
      pay: PayClient;
      bus: StatusBus;
      gate: ReadGate;
      logger: Logger;
      /** The merchant's events: the rule that writes them with each change, and who to tell once written. */
      events?: { rule: PaymentEventRule; written(): void } | undefined;
    },
  ) {}

  /**
   * Re-reads now (a webhook said something changed); concurrent calls share one read. Never rejects:
   * a failed read changes nothing, is logged, and the next reason to read will try again.
   */
  refreshNow(transactionId: string, reason: RefreshReason = 'webhook'): Promise<void> {
    let read = this.inFlight.get(transactionId);
    if (!read) {
      read = this.read(transactionId, reason).finally(() => this.inFlight.delete(transactionId));
      this.inFlight.set(transactionId, read);
    }
    return read;
  }

  /**
   * Re-reads when this payment's interval has passed since anyone last read it (never rejects either).
   * `resume`: this process
   * has not read it yet (it just started, and webhooks may have been missed while it was down), so it
   * is read now, whenever it was read before.
   */
  async refreshIfDue(payment: Payment, reason: 'watch' | 'follow', resume = false): Promise<void> {
    if (isTerminalStatus(payment.status)) return;
    const interval = resume ? MIN_WATCH_INTERVAL_MS : refreshInterval(payment, reason === 'watch');
    const now = Date.now();
    if (!resume && payment.lastCheckedAt !== null && now - payment.lastCheckedAt < interval) return;
    if (!resume && (this.nextAsk.get(payment.transactionId) ?? 0) > now) return;
    this.remember(payment.transactionId, now + interval);
    const claimed = await this.options.gate.tryClaim(payment.transactionId, interval).catch((error: unknown) => {
      this.options.logger.warn('read gate unavailable; payment not re-read', {
        transactionId: payment.transactionId,
        error,
      });
      return false;
    });
    if (claimed) await this.refreshNow(payment.transactionId, reason);
  }

  private remember(transactionId: string, nextAsk: number): void {
    if (this.nextAsk.size >= 100_000) {
      const now = Date.now();
      for (const [id, at] of this.nextAsk) if (at <= now) this.nextAsk.delete(id);
    }
    this.nextAsk.set(transactionId, nextAsk);
  }

  private async read(transactionId: string, reason: RefreshReason): Promise<void> {
    try {
      await this.readAndApply(transactionId, reason);
    } catch (error) {
      this.options.logger.warn('payment refresh failed', { transactionId, reason, error });
    }
  }

  private async readAndApply(transactionId: string, reason: RefreshReason): Promise<void> {
    const { store, pay, logger } = this.options;
    let record: PaymentRecord | null;
    const owed = reason === 'webhook' || reason === 'queued';
    try {
      record = await pay.read(transactionId, reason === 'follow' ? 'background' : 'foreground');
    } catch (error) {
      // Background reads give way when the budget is tight; that is routine, not a warning.
      const routine = reason === 'follow' && error instanceof UpstreamError && error.failure === 'rate_limited';
      logger[routine ? 'debug' : 'warn']('payment re-read failed', { transactionId, reason, error });
      // A webhook said something changed: the read is owed, and kept until it can be made.
      if (owed) {
        await store.reconciliation.queueReread(transactionId, Date.now());
        if (reason === 'webhook') logger.info('payment re-read queued', { transactionId });
      }
      return;
    }
    const now = Date.now();
    if (!record) {
      if (owed) await store.reconciliation.dequeueReread(transactionId);
      logger.warn('payment service does not know a payment Kassa recorded; marked unverifiable', { transactionId });
      await store.markChecked(transactionId, now);
      await store.reconciliation.markUnverifiable({
        transactionId,
        reason:
          'The payment service does not know this payment any more (404): the key it was made with may have been revoked or replaced. Settle it against the bank statement.',
        since: now,
      });
      return;
    }
    await this.apply(
      transactionId,
      {
        status: record.status,
        networkStatus: record.networkStatus,
        networkPaymentId: record.networkPaymentId,
        paymentRail: record.paymentRail,
        providerId: record.providerId,
        endToEndId: record.endToEndId,
        updatedAt: record.updatedTimestamp,
        completedAt: record.completedTimestamp,
      },
      now,
      reason,
    );
    // Book-keeping after the change is stored and announced, so that it never delays a status.
    if (owed) await store.reconciliation.dequeueReread(transactionId);
    await store.reconciliation.clearUnverifiable(transactionId);
  }

  /**
   * Applies a change (what upstream says, or the operator's resolution): stored with its events in
   * one transaction, then told to every page and operator watching. Undefined when nothing changed.
   */
  async apply(
    transactionId: string,
    update: PaymentUpdate,
    now: number,
    reason: RefreshReason | 'resolved',
  ): Promise<Payment | undefined> {
    const { store, logger } = this.options;
    const changed = await store.applyUpdate(transactionId, update, now, this.options.events?.rule);
    if (!changed) return undefined;
    this.options.events?.written();
    logger.info('payment status changed', {
      transactionId,
      status: changed.status,
      networkStatus: changed.networkStatus,
      reason,
    });
    const checkout = changed.checkoutId ? await store.getCheckout(changed.checkoutId) : undefined;
    await this.options.bus.publish(statusView(changed, checkout, now));
    return changed;
  }
}
