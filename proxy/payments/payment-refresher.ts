import { isTerminalStatus } from '../../schemas/pay.ts';
import type { GateClaim, ReadGate, StatusBus } from '../state/coordination.ts';
import type { Logger } from '../logger.ts';
import type { PaymentEventRule } from '../state/outbox.ts';
import type { Payment, PaymentUpdate, Store } from '../state/store.ts';
import type { PayClient } from '../upstream/pay-client.ts';
import { UpstreamError } from '../upstream/upstream-error.ts';
import { statusView } from './status-view.ts';

/** Why a payment is re-read: a webhook, a watching page, the follower, or a webhook's queued re-read. */
export type RefreshReason = 'webhook' | 'watch' | 'follow' | 'queued';

/**
 * A payment is read upstream at most this often, whatever the reason and however many instances,
 * browsers and webhooks ask (the read gate, fleet-wide on Redis).
 */
export const MIN_READ_INTERVAL_MS = 5_000;

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
  if (watched) return clamp(age / 4, MIN_READ_INTERVAL_MS, 60_000);
  return RECONCILE_STEPS.find((step) => age < step.below)!.every;
}

const clamp = (value: number, min: number, max: number) => Math.min(max, Math.max(min, value));

/**
 * The only way a payment's status changes in the proxy: by reading it from the payment service.
 * Webhooks are unsigned, so they are hints that trigger a read, never a status in themselves. Every
 * read, whatever prompted it, first claims the payment's read gate (one read per payment per 5 s, and
 * one more for a webhook that comes after a watcher's or the follower's read), so
 * that neither a storm of webhooks nor a crowd of watchers can spend the budget new payments need; a
 * webhook whose read the gate or the budget holds back leaves a queued re-read, made by the follower
 * once the gate opens, so no hint is lost.
 */
export class PaymentRefresher {
  /**
   * When this instance may next ask the (possibly fleet-wide) gate about a payment: a hot status-read
   * path would otherwise ask Redis on every request, to be told no almost every time.
   */
  private readonly nextAsk = new Map<string, number>();
  /** Queued re-reads this instance makes as soon as their gate opens, one timer per payment. */
  private readonly waiting = new Map<string, NodeJS.Timeout>();

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
   * A webhook says this payment changed: read it now if its gate is open, else queue the read for the
   * follower. Never rejects: a failed read changes nothing, is logged and stays queued.
   */
  async hinted(payment: Payment): Promise<void> {
    const { transactionId } = payment;
    const claim = await this.claim(transactionId, 'webhook');
    if (claim.ok) return this.read(payment, 'webhook');
    await this.queue(transactionId, 'debug', 'read gate closed');
    // Made when the gate opens rather than at the follower's next sweep: the hint may be the payment's end.
    if (claim.retryInMs !== undefined && !this.waiting.has(transactionId)) {
      const timer = setTimeout(() => {
        this.waiting.delete(transactionId);
        void this.queued(transactionId).catch((error: unknown) =>
          this.options.logger.warn('queued payment re-read failed', { transactionId, error }),
        );
      }, claim.retryInMs + 20);
      timer.unref();
      this.waiting.set(transactionId, timer);
    }
  }

  /** Drops the timers of queued re-reads (the follower makes them after a restart). */
  stop(): void {
    for (const timer of this.waiting.values()) clearTimeout(timer);
    this.waiting.clear();
  }

  /**
   * A queued re-read (the follower, oldest first): made once the payment's gate is open, and dropped
   * without a read when the payment has become final meanwhile.
   */
  async queued(transactionId: string): Promise<void> {
    const { store } = this.options;
    const payment = await store.paymentById(transactionId);
    if (!payment || isTerminalStatus(payment.status)) {
      await store.reconciliation.dequeueReread(transactionId);
      return;
    }
    // Queued reads wait for an open gate: a routine read under way will see what the webhook saw.
    if ((await this.claim(transactionId, 'owed')).ok) await this.read(payment, 'queued');
  }

  /**
   * Re-reads when this payment's interval has passed since anyone last read it (never rejects either).
   * `resume`: this process
   * has not read it yet (it just started, and webhooks may have been missed while it was down), so it
   * is read now, whenever it was read before.
   */
  async refreshIfDue(payment: Payment, reason: 'watch' | 'follow', resume = false): Promise<void> {
    if (isTerminalStatus(payment.status)) return;
    const interval = resume ? MIN_READ_INTERVAL_MS : refreshInterval(payment, reason === 'watch');
    const now = Date.now();
    if (!resume && payment.lastCheckedAt !== null && now - payment.lastCheckedAt < interval) return;
    if (!resume && (this.nextAsk.get(payment.transactionId) ?? 0) > now) return;
    this.remember(payment.transactionId, now + interval);
    if ((await this.claim(payment.transactionId)).ok) await this.read(payment, reason);
  }

  /**
   * Whether this caller may read the payment now (no read of it in the last 5 s; for a webhook just
   * received, none that a webhook asked for), else when.
   */
  private async claim(transactionId: string, why: GateClaim = 'routine'): Promise<{ ok: boolean; retryInMs?: number }> {
    return this.options.gate.tryClaim(transactionId, MIN_READ_INTERVAL_MS, why).catch((error: unknown) => {
      this.options.logger.warn('read gate unavailable; payment not re-read', { transactionId, error });
      return { ok: false };
    });
  }

  private remember(transactionId: string, nextAsk: number): void {
    if (this.nextAsk.size >= 100_000) {
      const now = Date.now();
      for (const [id, at] of this.nextAsk) if (at <= now) this.nextAsk.delete(id);
    }
    this.nextAsk.set(transactionId, nextAsk);
  }

  /** A webhook's read is owed: kept in the store until a read made after it succeeds. */
  private async queue(transactionId: string, level: 'debug' | 'info', why: string): Promise<void> {
    try {
      await this.options.store.reconciliation.queueReread(transactionId, Date.now());
      this.options.logger[level]('payment re-read queued', { transactionId, why });
    } catch (error) {
      this.options.logger.warn('payment re-read could not be queued', { transactionId, error });
    }
  }

  private async read(payment: Payment, reason: RefreshReason): Promise<void> {
    const owed = reason === 'webhook' || reason === 'queued';
    const startedAt = Date.now();
    try {
      await this.readAndApply(payment, reason, startedAt);
    } catch (error) {
      // Kassa's own budget had no room (no status: nothing was sent): the gate stays open for the next
      // reason to read, a webhook's above all, instead of holding it back 5 s for a read never made.
      const limited = error instanceof UpstreamError && error.failure === 'rate_limited';
      if (limited && !error.details.status)
        await this.options.gate.release(payment.transactionId).catch(() => undefined);
      // Routine reads give way when the budget is kept for new payments: that is no warning.
      const routine = !owed && limited;
      this.options.logger[routine ? 'debug' : 'warn']('payment re-read failed', {
        transactionId: payment.transactionId,
        reason,
        error,
      });
      if (owed) await this.queue(payment.transactionId, reason === 'webhook' ? 'info' : 'debug', 'read failed');
    }
  }

  private async readAndApply(payment: Payment, reason: RefreshReason, startedAt: number): Promise<void> {
    const { store, pay, logger } = this.options;
    const { transactionId } = payment;
    const owed = reason === 'webhook' || reason === 'queued';
    const record = await pay.read(payment, owed ? 'hint' : 'routine');
    const now = Date.now();
    if (!record) {
      await store.reconciliation.dequeueReread(transactionId, startedAt);
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
    // Book-keeping after the change is stored and announced, so that it never delays a status. Only
    // hints older than this read are settled by it: one that came during the read stays queued.
    await store.reconciliation.dequeueReread(transactionId, startedAt);
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
