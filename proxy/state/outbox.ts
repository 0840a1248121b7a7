/**
 * The transactional outbox of the merchant's events. An event row is written in the same store
 * transaction as the change that causes it (see `Store.applyUpdate` and `Outbox.expireCheckouts`), so
 * a crash between the change and the delivery loses nothing; the deliverer (events/event-deliverer.ts)
 * leases due events, posts them, and records each attempt here. Every store implements it alike.
 */
import type { EventStatus, KassaEventType } from '../../schemas/events.ts';
import { decodePosition, encodePosition, InvalidCursorError, type Page } from './cursors.ts';
import type { Attempt, Checkout, Payment } from './records.ts';

/** An event as written with the change that causes it. `payload` is the signed body, as sent. */
export interface NewEvent {
  eventId: string;
  type: KassaEventType;
  transactionId: string | null;
  checkoutId: string | null;
  sequence: number;
  /** Epoch ms. */
  createdAt: number;
  payload: string;
}

export interface StoredEvent extends NewEvent {
  status: EventStatus;
  attempts: number;
  /** When it is next due (epoch ms); while leased, when the lease ends. Null once delivered or failed. */
  nextAttemptAt: number | null;
  deliveredAt: number | null;
  lastError: string | null;
}

export interface EventAttemptRecord {
  at: number;
  durationMs: number;
  statusCode: number | null;
  error: string | null;
}

/** What follows an attempt: done, due again at `retryAt`, or given up. */
export type AttemptOutcome = { status: 'delivered' } | { status: 'pending'; retryAt: number } | { status: 'failed' };

/** The events a payment's change causes, decided inside the transaction that applies the change. */
export type PaymentEventRule = (previous: Payment, next: Payment, checkout: Checkout | undefined) => NewEvent[];

/** The events of a checkout past its expiry: none while its payment may still complete. */
export type ExpiryRule = (
  checkout: Checkout,
  attempt: Attempt | undefined,
  payment: Payment | undefined,
) => { settled: false } | { settled: true; events: NewEvent[] };

/**
 * A destination of events as the store keeps it, by its id (events/event-endpoint.ts names the
 * configured ones): whether events go there, and the 410 Gone answers that may stop them.
 */
export interface EndpointState {
  endpointId: string;
  /** 410 Gone answers in a row, since the last 2xx or since an operator enabled it. */
  goneInARow: number;
  /** When events stopped going there (epoch ms); null while they go. */
  disabledAt: number | null;
  disabledReason: string | null;
}

/** The state of an endpoint the store has no record of: events go there. */
export const freshEndpoint = (endpointId: string): EndpointState => ({
  endpointId,
  goneInARow: 0,
  disabledAt: null,
  disabledReason: null,
});

/** When a run of 410 Gone answers disables an endpoint. */
export interface GoneRule {
  /** The length of the run that disables it. */
  after: number;
  at: number;
  reason: string;
}

/**
 * Whether KASSA_EVENTS_URL takes the events written: its queue is the outbox's own rows (`pending`
 * until delivered). Without it an event is written only when a destination takes it, and then owes
 * the outbox nothing (`delivered` there at once, its deliveries in each destination's queue); one no
 * destination takes is not written at all, as before there were destinations (docs/events.md).
 */
export interface EventRouting {
  environment: boolean;
}

export type EventPage = Page<'events', StoredEvent>;

export interface Outbox {
  /** Says whether KASSA_EVENTS_URL takes the events written from now on (the proxy, at start); until told, it does. */
  routeToEnvironment(takes: boolean): void;
  /**
   * Leases up to `limit` due events until `now + leaseMs`, atomically, so that on a fleet each attempt
   * is made by exactly one instance. An instance that dies mid-attempt leaves the event due again when
   * its lease ends.
   */
  claimDue(now: number, limit: number, leaseMs: number): Promise<StoredEvent[]>;
  /** Records an attempt and what follows it. */
  settle(eventId: string, attempt: EventAttemptRecord, outcome: AttemptOutcome): Promise<void>;
  listEvents(query: {
    status?: EventStatus | undefined;
    type?: KassaEventType | undefined;
    limit: number;
    cursor?: string | undefined;
  }): Promise<EventPage>;
  getEvent(eventId: string): Promise<{ event: StoredEvent; attempts: EventAttemptRecord[] } | undefined>;
  /** Makes an event due now, whatever its status; undefined when there is no such event. */
  redeliver(eventId: string, now: number): Promise<StoredEvent | undefined>;
  /** Makes every failed event created since `since` due now; returns how many. */
  redeliverFailed(since: number, now: number): Promise<number>;
  /**
   * Looks at up to `limit` checkouts past their expiry that have not been settled yet and, for each
   * the rule settles, marks it and writes its events in one transaction. Returns how many it settled.
   */
  expireCheckouts(now: number, limit: number, rule: ExpiryRule): Promise<number>;
  /** Events not yet delivered nor given up, and when the oldest of them was created (null: none). */
  depth(): Promise<{ pending: number; oldestCreatedAt: number | null }>;
  /** Forgets delivered events (and their attempts) created before `before`; returns how many. */
  purgeDelivered(before: number): Promise<number>;
  /** An endpoint's state; one never recorded is enabled. */
  endpointState(endpointId: string): Promise<EndpointState>;
  /**
   * Counts a 410 Gone from an endpoint, atomically (a fleet's instances count together), and disables
   * it when the run reaches `rule.after`, unless it is disabled already. Returns the state after.
   */
  countGone(endpointId: string, rule: GoneRule): Promise<EndpointState>;
  /** A 2xx from the endpoint ends a run of 410s. */
  clearGone(endpointId: string): Promise<void>;
  /** The operator's action: events go to the endpoint again, and the run of 410s starts over. */
  enableEndpoint(endpointId: string): Promise<EndpointState>;
}

/** How many attempts of one event are kept for the operator to read. */
export const ATTEMPTS_KEPT = 50;

export class InvalidEventCursorError extends InvalidCursorError {}

/** Event cursors: the position (createdAt, eventId) of the last event seen. */
export const encodeEventCursor = (event: Pick<NewEvent, 'createdAt' | 'eventId'>): string =>
  encodePosition(event.createdAt, event.eventId);

export function decodeEventCursor(cursor: string): { createdAt: number; eventId: string } {
  const [createdAt, eventId] = decodePosition(cursor, 'evt_[A-Za-z0-9_-]{1,64}', InvalidEventCursorError);
  return { createdAt, eventId };
}
