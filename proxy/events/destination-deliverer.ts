import type { Logger } from '../logger.ts';
import type { DestinationRecord, DestinationStore, QueuedDelivery } from '../state/destinations.ts';
import type { AttemptOutcome, Outbox } from '../state/outbox.ts';
import { GONE_BEFORE_DISABLED } from './event-deliverer.ts';
import { postEvent } from './event-post.ts';
import { PollLoop } from './poll-loop.ts';
import { EventSigner } from './event-signer.ts';
import { afterFailure, type RetrySchedule } from './retry-schedule.ts';

export interface DestinationDelivererOptions {
  destinations: DestinationStore;
  /** Where a destination's run of 410 Gone answers is counted (the same state as KASSA_EVENTS_URL's). */
  outbox: Outbox;
  logger: Logger;
  schedule: RetrySchedule;
  pollMs: number;
  timeoutMs: number;
  /** How long a destination is this instance's alone (30 s, and twice `timeoutMs` at least), taken again for each batch. */
  leaseMs?: number;
  /** Deliveries taken from the head of the queue at once (20). */
  batch?: number;
}

/** The secrets that sign now: the current one, and the previous one until its overlap ends. */
export const signingSecrets = (record: DestinationRecord, now: number): string[] =>
  record.secrets.filter((entry) => entry.expiresAt === null || entry.expiresAt > now).map((entry) => entry.secret);

/**
 * Delivers one destination's queue, in order, on its own: its own loop and timers, so a destination
 * that is slow (up to the 15 s timeout per attempt) or failing holds back only its own deliveries. The
 * head is posted one at a time; a failure schedules it again and holds the rest behind it (the
 * receiver gets its backlog in order once it recovers); a delivery given up (three days, or a 410)
 * lets the next go.
 */
export class DestinationDeliverer {
  private readonly loop: PollLoop;
  /** While the head waits for its retry, the queue is not looked at (an operator's action ends the wait). */
  private notBefore = 0;

  constructor(
    private record: DestinationRecord,
    private readonly options: DestinationDelivererOptions,
  ) {
    this.loop = new PollLoop({
      round: () => this.round(),
      pollMs: options.pollMs,
      failed: (error) =>
        options.logger.warn('event destination queue unavailable', { destination: record.destinationId, error }),
    });
  }

  get destinationId(): string {
    return this.record.destinationId;
  }

  /** The destination as read again (its address, its secrets, whether it is enabled). */
  update(record: DestinationRecord): void {
    if (record.disabledAt === null && this.record.disabledAt !== null) this.notBefore = 0;
    this.record = record;
  }

  /** An operator changed the queue (skipped its backlog, enabled it): look now, not at the head's retry. */
  retryNow(): void {
    this.notBefore = 0;
    this.wake();
  }

  start(): void {
    this.loop.start();
  }

  wake(): void {
    this.loop.wake();
  }

  /** Stops taking deliveries and waits for the one under way (it ends within the timeout). */
  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** Delivers the head of the queue, in order, until one fails; true when more may be waiting. */
  private async round(): Promise<boolean> {
    const { destinations, timeoutMs, batch = 20 } = this.options;
    // Room for one attempt at least, whatever the timeout.
    const leaseMs = Math.max(this.options.leaseMs ?? 30_000, 2 * timeoutMs);
    const id = this.record.destinationId;
    if (Date.now() < this.notBefore) return false;
    const claimedAt = Date.now();
    const head = await destinations.claimHead(id, claimedAt, batch, leaseMs);
    if (head.length === 0) return false;
    let blocked = false;
    let posted = 0;
    for (const delivery of head) {
      // An attempt starts only if it ends within the lease: past it, another instance may take the
      // queue and post the same head again, out of order.
      if (!this.loop.running || blocked || Date.now() + timeoutMs > claimedAt + leaseMs) break;
      blocked = !(await this.deliver(delivery));
      posted++;
    }
    await destinations.releaseLease(id);
    return !blocked && (posted < head.length || head.length === batch);
  }

  /** Posts one delivery and records it; false when it is to be tried again (the queue waits for it until then). */
  private async deliver(delivery: QueuedDelivery): Promise<boolean> {
    const { destinations, outbox, schedule, timeoutMs, logger } = this.options;
    const { destinationId, url } = this.record;
    const signer = new EventSigner(signingSecrets(this.record, Date.now()));
    const posted = await postEvent(url, signer.sign(delivery.eventId, delivery.payload), delivery.payload, timeoutMs);
    const { statusCode, error, delivered } = posted;
    const outcome: AttemptOutcome = delivered
      ? { status: 'delivered' }
      : statusCode === 410
        ? { status: 'failed' }
        : afterFailure(schedule, delivery.attempts + 1, delivery.createdAt, Date.now(), posted.retryAfterMs);
    const fields = {
      destination: destinationId,
      eventId: delivery.eventId,
      attempt: delivery.attempts + 1,
      statusCode,
    };
    if (delivered) logger.info('event delivered', { ...fields, ms: posted.durationMs });
    else if (outcome.status === 'failed') logger.error('event given up', { ...fields, error });
    else if (outcome.status === 'pending')
      logger.warn('event delivery failed', { ...fields, error, retryAt: new Date(outcome.retryAt).toISOString() });
    await destinations.settle(destinationId, delivery.eventId, posted, outcome);
    if (outcome.status === 'pending') this.notBefore = outcome.retryAt;
    if (statusCode === 410) {
      const reason = `The destination answered 410 Gone ${GONE_BEFORE_DISABLED} times in a row: it wants no more events`;
      const state = await outbox.countGone(destinationId, { after: GONE_BEFORE_DISABLED, at: Date.now(), reason });
      if (state.disabledAt !== null) {
        logger.error('event destination disabled; its events wait until an operator enables it', { destinationId });
        return false;
      }
    } else if (delivered) await outbox.clearGone(destinationId);
    return outcome.status !== 'pending';
  }
}
