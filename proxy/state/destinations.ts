/**
 * The merchant's event destinations and each one's queue of deliveries (docs/events.md#destinations).
 * One event fans out to one delivery per destination whose types it matches, written in the same
 * transaction as the event (the store's `insertEvents`), disabled destinations included: they keep
 * their deliveries until enabled (or skipped). Each destination's queue is delivered in order and on
 * its own, so a slow or failing one never delays another.
 *
 * KASSA_EVENTS_URL is the first destination, of kind `environment`: its deliveries are the outbox's
 * own rows (outbox.ts), and its state (disabled after 410s) the outbox's endpoint state. The
 * destinations here are the ones added through the API, kept in the same table as that state.
 */
import type { DeliveryStatus } from '../../schemas/event-destinations.ts';
import type { KassaEventType } from '../../schemas/events.ts';
import type { Page } from './cursors.ts';
import type { AttemptOutcome, EventAttemptRecord } from './outbox.ts';

export interface DestinationSecret {
  /** `whsec_…`: kept as it is, since every delivery is signed with it. */
  secret: string;
  /** Epoch ms after which it no longer signs (the previous secret during a rotation); null: current. */
  expiresAt: number | null;
}

export interface DestinationRecord {
  destinationId: string;
  url: string;
  description: string;
  /** `*` or event types. */
  enabledEvents: string[];
  /** The newest first. */
  secrets: DestinationSecret[];
  createdAt: number;
  disabledAt: number | null;
  disabledReason: string | null;
}

export type DestinationPatch = Partial<Omit<DestinationRecord, 'destinationId' | 'createdAt'>>;

/** A delivery as its destination's queue gives it: the event's signed body with it. */
export interface QueuedDelivery {
  eventId: string;
  type: KassaEventType;
  payload: string;
  createdAt: number;
  attempts: number;
}

export interface DeliveryRecord {
  eventId: string;
  type: KassaEventType;
  status: DeliveryStatus;
  /** Its place in the queue (`queuedAt`): the event's time, or just after a delivery committed before it. */
  createdAt: number;
  attempts: number;
  nextAttemptAt: number | null;
  deliveredAt: number | null;
  lastAttemptAt: number | null;
  lastStatusCode: number | null;
  lastDurationMs: number | null;
  lastError: string | null;
}

export type DeliveryPage = Page<'deliveries', DeliveryRecord>;

export interface DestinationStore {
  create(record: DestinationRecord): Promise<void>;
  list(): Promise<DestinationRecord[]>;
  get(destinationId: string): Promise<DestinationRecord | undefined>;
  /** Changes a destination; undefined when there is none. */
  update(destinationId: string, patch: DestinationPatch): Promise<DestinationRecord | undefined>;
  /** Removes a destination with its deliveries; false when there was none. */
  remove(destinationId: string): Promise<boolean>;
  /** Deliveries waiting per destination. */
  pendingCounts(): Promise<Map<string, number>>;
  /**
   * The head of a destination's queue, oldest first, up to `limit`: the pending deliveries from the
   * oldest on, as long as each is due at `now` (a failed head holds the rest back, so they arrive in
   * order). Leases the destination until `now + leaseMs`, atomically: on a fleet one instance
   * delivers a destination at a time. Empty while another instance holds the lease.
   */
  claimHead(destinationId: string, now: number, limit: number, leaseMs: number): Promise<QueuedDelivery[]>;
  /** Ends this instance's lease on the destination early (its batch is done); one it no longer holds (ran out, taken over) is left alone. */
  releaseLease(destinationId: string): Promise<void>;
  settle(destinationId: string, eventId: string, attempt: EventAttemptRecord, outcome: AttemptOutcome): Promise<void>;
  /** Every pending delivery of the destination becomes `skipped`; returns how many. */
  skipPending(destinationId: string): Promise<number>;
  /** Newest first. */
  deliveries(
    destinationId: string,
    query: { status?: DeliveryStatus | undefined; limit: number; cursor?: string | undefined },
  ): Promise<DeliveryPage>;
}

/**
 * A delivery's place in its destination's queue, the `createdAt` the queue and the log are ordered by
 * (with the event's id): the event's own time, or a millisecond after the queue's last delivery
 * (`last`, delivered ones included) where the event was made no later than that one. An event is made
 * before the transaction writing it commits, so one made first may commit after another; by its own
 * time it would join the queue ahead of a delivery already posted, and the receiver would get the two
 * in an order the log does not show. Each store adds deliveries to a queue one transaction at a time,
 * so the queue's order is the order they were committed in. The event keeps its own time.
 */
export const queuedAt = (createdAt: number, last: number | null | undefined): number =>
  last == null || createdAt > last ? createdAt : last + 1;

/** Whether a destination takes events of `type`. */
export const takes = (enabledEvents: readonly string[], type: string): boolean =>
  enabledEvents.includes('*') || enabledEvents.includes(type);
