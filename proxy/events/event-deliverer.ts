import type { EventEndpointView } from '../../schemas/event-endpoint.ts';
import type { Logger } from '../logger.ts';
import type { AttemptOutcome, EndpointState, EventAttemptRecord, Outbox, StoredEvent } from '../state/outbox.ts';
import { endpointView, eventEndpoint, type EventEndpoint } from './event-endpoint.ts';
import type { EventSigner } from './event-signer.ts';
import { postEvent } from './event-post.ts';
import { PollLoop } from './poll-loop.ts';
import { afterFailure, retrySchedule, type RetrySchedule } from './retry-schedule.ts';

export interface EventDelivererOptions {
  outbox: Outbox;
  /** KASSA_EVENTS_URL. */
  url: string;
  signer: EventSigner;
  logger: Logger;
  schedule?: RetrySchedule;
  /** How often the outbox is looked at when nothing wakes the deliverer (1 s). */
  pollMs?: number;
  /** How long the receiver has to answer (15 s, within Standard Webhooks' 15 to 30 s). */
  timeoutMs?: number;
  /** How long a claimed event is this instance's alone (30 s: longer than any attempt). */
  leaseMs?: number;
  /** Deliveries under way at once (16). */
  concurrency?: number;
}

const defaults = { pollMs: 1_000, timeoutMs: 15_000, leaseMs: 30_000, concurrency: 16 };
/** 410 Gone answers in a row after which an endpoint is disabled: its receiver wants no more events. */
export const GONE_BEFORE_DISABLED = 3;

/**
 * Delivers the outbox to the merchant's endpoint, at least once: claims due events (a lease, so on a
 * fleet one instance makes each attempt), posts each signed with a 15 s timeout, records the attempt,
 * and schedules a retry (no sooner than a 429's or 503's Retry-After) or gives up. Woken at once when
 * a change writes events, and polls besides, so events written by another instance or before a
 * restart go out too. As Standard Webhooks asks, a 410 Gone is not retried, and repeated ones disable
 * the endpoint (kept in the store) until an operator enables it: its events wait, pending.
 */
export class EventDeliverer {
  private readonly settings: typeof defaults & EventDelivererOptions & { schedule: RetrySchedule };
  private readonly inFlight = new Set<Promise<void>>();
  private readonly loop: PollLoop;
  private readonly endpoint: EventEndpoint;
  /** The endpoint's state as last read or written, and when it was read (read again after pollMs). */
  private state: { value: EndpointState; readAt: number } | undefined;

  constructor(options: EventDelivererOptions) {
    // Options left undefined take the defaults (a spread alone would overwrite them with undefined).
    const given = Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined));
    this.settings = { ...defaults, ...(given as EventDelivererOptions), schedule: options.schedule ?? retrySchedule() };
    this.endpoint = eventEndpoint(options.url);
    this.loop = new PollLoop({
      round: () => this.round(),
      pollMs: this.settings.pollMs,
      failed: (error) => this.settings.logger.warn('event outbox unavailable', { error }),
    });
  }

  /** Where events go, each with whether they go there now (read from the store, for the operator). */
  async endpoints(): Promise<EventEndpointView[]> {
    return [endpointView(this.endpoint, await this.settings.outbox.endpointState(this.endpoint.id))];
  }

  /** The operator's action: events go to the endpoint again, now. Undefined for an unknown endpoint. */
  async enable(endpointId: string): Promise<EventEndpointView | undefined> {
    if (endpointId !== this.endpoint.id) return undefined;
    const state = await this.settings.outbox.enableEndpoint(endpointId);
    this.state = { value: state, readAt: Date.now() };
    this.settings.logger.info('event endpoint enabled', { endpoint: endpointId });
    this.wake();
    return endpointView(this.endpoint, state);
  }

  start(): void {
    this.loop.start();
  }

  /** Something was written to the outbox: look now rather than at the next poll. */
  wake(): void {
    this.loop.wake();
  }

  /** Stops claiming and waits for the attempts under way (each ends within the timeout). */
  async stop(): Promise<void> {
    await this.loop.stop();
    await Promise.allSettled([...this.inFlight]);
  }

  /** Claims as many due events as there is room for and starts their deliveries; true when more may be due. */
  private async round(): Promise<boolean> {
    const capacity = this.settings.concurrency - this.inFlight.size;
    if (capacity <= 0 || !(await this.endpointOpen())) return false;
    const events = await this.settings.outbox.claimDue(Date.now(), capacity, this.settings.leaseMs);
    for (const event of events) {
      const delivery: Promise<void> = this.deliver(event).finally(() => {
        this.inFlight.delete(delivery);
        this.wake();
      });
      this.inFlight.add(delivery);
    }
    return events.length === capacity;
  }

  private async deliver(event: StoredEvent): Promise<void> {
    const { url, signer, timeoutMs, logger } = this.settings;
    const posted = await postEvent(url, signer.sign(event.eventId, event.payload), event.payload, timeoutMs);
    const { statusCode, error, delivered } = posted;
    const attempt: EventAttemptRecord = { at: posted.at, durationMs: posted.durationMs, statusCode, error };
    const outcome: AttemptOutcome = delivered
      ? { status: 'delivered' }
      : statusCode === 410
        ? { status: 'failed' }
        : afterFailure(this.settings.schedule, event.attempts + 1, event.createdAt, Date.now(), posted.retryAfterMs);
    const fields = { eventId: event.eventId, type: event.type, attempt: event.attempts + 1, statusCode, error };
    if (delivered) logger.info('event delivered', { ...fields, ms: attempt.durationMs });
    else if (outcome.status === 'failed') logger.error('event given up', fields);
    else if (outcome.status === 'pending')
      logger.warn('event delivery failed', { ...fields, retryAt: new Date(outcome.retryAt).toISOString() });
    try {
      await this.settings.outbox.settle(event.eventId, attempt, outcome);
    } catch (cause) {
      // Not recorded: the lease ends and the event is tried again, so it is late, never lost.
      logger.warn('event attempt not recorded', { eventId: event.eventId, error: cause });
    }
    if (statusCode === 410 || (delivered && this.state && this.state.value.goneInARow > 0))
      await this.countAnswer(statusCode === 410).catch((cause: unknown) =>
        logger.warn('event endpoint state not recorded', { endpoint: this.endpoint.id, error: cause }),
      );
  }

  /** Whether events go to the endpoint: its state, read again once it is pollMs old (another instance may change it). */
  private async endpointOpen(): Promise<boolean> {
    const now = Date.now();
    if (!this.state || now - this.state.readAt >= this.settings.pollMs)
      this.state = { value: await this.settings.outbox.endpointState(this.endpoint.id), readAt: now };
    return this.state.value.disabledAt === null;
  }

  /** A 410 Gone lengthens the endpoint's run of them (which may disable it); a 2xx ends it. */
  private async countAnswer(gone: boolean): Promise<void> {
    const { outbox, logger } = this.settings;
    const id = this.endpoint.id;
    if (!gone) {
      await outbox.clearGone(id);
      this.state = { value: { ...this.state!.value, goneInARow: 0 }, readAt: this.state!.readAt };
      return;
    }
    const at = Date.now();
    const reason = `The endpoint answered 410 Gone ${GONE_BEFORE_DISABLED} times in a row: it wants no more events`;
    const state = await outbox.countGone(id, { after: GONE_BEFORE_DISABLED, at, reason });
    this.state = { value: state, readAt: at };
    if (state.disabledAt === at)
      logger.error('event endpoint disabled; its events wait until an operator enables it', { endpoint: id, reason });
  }
}
