import {
  ATTEMPTS_KEPT,
  decodeEventCursor,
  freshEndpoint,
  type AttemptOutcome,
  type EndpointState,
  type EventAttemptRecord,
  type EventPage,
  type EventRouting,
  type ExpiryRule,
  type GoneRule,
  type NewEvent,
  type Outbox,
  type StoredEvent,
} from '../outbox.ts';
import { pageAfter } from '../cursors.ts';
import type { Checkout } from '../records.ts';
import type { Database, Dialect, Sql } from './database.ts';
import { destinationsTaking, holdQueues, insertDeliveries, NO_DELIVERY_PENDING } from './destinations.ts';
import { attemptOf, CHECKOUT, ENDPOINT, EVENT, EVENT_ATTEMPT, NEW_EVENT, NewestFirst, paymentOf } from './rows.ts';

const EVENTS = new NewestFirst<StoredEvent>(`SELECT ${EVENT.select} FROM events`, 'event_id');
const ENDPOINT_BY_ID = `SELECT ${ENDPOINT.select} FROM event_endpoints WHERE endpoint_id = ?`;

/**
 * Writes new events, and a delivery of each to every destination that takes it, at the end of its
 * queue (held until the transaction ends); called inside the transaction of the change that causes
 * them. Without KASSA_EVENTS_URL an event no destination takes is not written, and one they take owes
 * the outbox nothing (outbox.ts's `EventRouting`).
 */
export async function insertEvents(
  tx: Sql,
  dialect: Dialect,
  events: readonly NewEvent[],
  routing: EventRouting,
): Promise<void> {
  if (events.length === 0) return;
  const taking = await destinationsTaking(tx, dialect);
  await holdQueues(
    tx,
    dialect,
    events.flatMap((event) => taking(event.type)),
  );
  for (const event of events) {
    const destinations = taking(event.type);
    if (!routing.environment && destinations.length === 0) continue;
    await tx.run(`INSERT INTO events (${NEW_EVENT.names}, status, next_attempt_at) VALUES (${NEW_EVENT.marks}, ?, ?)`, [
      ...NEW_EVENT.values(event),
      ...(routing.environment ? ['pending', event.createdAt] : ['delivered', null]),
    ]);
    await insertDeliveries(tx, event, destinations);
  }
}

/** The outbox in the database, beside the payments whose changes write to it. */
export class SqlOutbox implements Outbox {
  /** Shared with the store's other parts that write events. */
  readonly routing: EventRouting = { environment: true };

  constructor(private readonly db: Database) {}

  routeToEnvironment(takes: boolean): void {
    this.routing.environment = takes;
  }

  claimDue(now: number, limit: number, leaseMs: number): Promise<StoredEvent[]> {
    // Rows another instance is claiming are skipped, not waited for: each attempt is made by one instance.
    return this.db.rows<StoredEvent>(
      `UPDATE events SET next_attempt_at = ?
         WHERE event_id IN (SELECT event_id FROM events WHERE status = 'pending' AND next_attempt_at <= ?
           ORDER BY next_attempt_at LIMIT ?${this.db.dialect.skipLocked})
         RETURNING ${EVENT.select}`,
      [now + leaseMs, now, limit],
    );
  }

  async settle(eventId: string, attempt: EventAttemptRecord, outcome: AttemptOutcome): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.run(`INSERT INTO event_attempts (event_id, ${EVENT_ATTEMPT.names}) VALUES (?, ${EVENT_ATTEMPT.marks})`, [
        eventId,
        ...EVENT_ATTEMPT.values(attempt),
      ]);
      const id = this.db.dialect.rowId('attempt_id');
      await tx.run(
        `DELETE FROM event_attempts WHERE event_id = ? AND ${id} NOT IN
           (SELECT ${id} FROM event_attempts WHERE event_id = ? ORDER BY at DESC, ${id} DESC LIMIT ${ATTEMPTS_KEPT})`,
        [eventId, eventId],
      );
      const error = attempt.error ?? (attempt.statusCode === null ? null : `HTTP ${attempt.statusCode}`);
      await tx.run(
        `UPDATE events SET status = ?, attempts = attempts + 1, next_attempt_at = ?, delivered_at = ?,
             last_error = CASE WHEN ? = 'delivered' THEN last_error ELSE ? END
           WHERE event_id = ?`,
        [
          outcome.status,
          outcome.status === 'pending' ? outcome.retryAt : null,
          outcome.status === 'delivered' ? attempt.at : null,
          outcome.status,
          error,
          eventId,
        ],
      );
    });
  }

  async listEvents(query: Parameters<Outbox['listEvents']>[0]): Promise<EventPage> {
    const after = query.cursor ? decodeEventCursor(query.cursor) : undefined;
    const rows = await EVENTS.rows(this.db, after && [after.createdAt, after.eventId], query.limit, {
      'status = ?': query.status,
      'type = ?': query.type,
    });
    const { items: events, nextCursor } = pageAfter(rows, query.limit, false, (last) => [last.createdAt, last.eventId]);
    return { events, nextCursor };
  }

  async getEvent(eventId: string): Promise<{ event: StoredEvent; attempts: EventAttemptRecord[] } | undefined> {
    const event = await this.db.row<StoredEvent>(`SELECT ${EVENT.select} FROM events WHERE event_id = ?`, [eventId]);
    if (!event) return undefined;
    const attempts = await this.db.rows<EventAttemptRecord>(
      `SELECT ${EVENT_ATTEMPT.select} FROM event_attempts WHERE event_id = ? ORDER BY at, ${this.db.dialect.rowId('attempt_id')}`,
      [eventId],
    );
    return { event, attempts };
  }

  redeliver(eventId: string, now: number): Promise<StoredEvent | undefined> {
    return this.db.row<StoredEvent>(
      `UPDATE events SET status = 'pending', next_attempt_at = ? WHERE event_id = ? RETURNING ${EVENT.select}`,
      [now, eventId],
    );
  }

  redeliverFailed(since: number, now: number): Promise<number> {
    return this.db.run(
      "UPDATE events SET status = 'pending', next_attempt_at = ? WHERE status = 'failed' AND created_at >= ?",
      [now, since],
    );
  }

  expireCheckouts(now: number, limit: number, rule: ExpiryRule): Promise<number> {
    return this.db.transaction(async (tx) => {
      // Checkouts another instance is settling are left to it.
      const due = await tx.rows<Checkout>(
        `SELECT ${CHECKOUT.select} FROM checkouts WHERE expiry_settled = FALSE AND expires_at <= ?
           ORDER BY expires_at LIMIT ?${this.db.dialect.skipLocked}`,
        [now, limit],
      );
      let settled = 0;
      for (const checkout of due) {
        const attempt = checkout.currentAttempt ? await attemptOf(tx, checkout.currentAttempt) : undefined;
        const payment = attempt?.transactionId ? await paymentOf(tx, attempt.transactionId) : undefined;
        const decision = rule(checkout, attempt, payment);
        if (!decision.settled) continue;
        await tx.run('UPDATE checkouts SET expiry_settled = TRUE WHERE checkout_id = ?', [checkout.checkoutId]);
        await insertEvents(tx, this.db.dialect, decision.events, this.routing);
        settled++;
      }
      return settled;
    });
  }

  async depth(): Promise<{ pending: number; oldestCreatedAt: number | null }> {
    return (await this.db.row<{ pending: number; oldestCreatedAt: number | null }>(
      `SELECT count(*) AS pending, min(created_at) AS "oldestCreatedAt" FROM events WHERE status = 'pending'`,
    ))!;
  }

  purgeDelivered(before: number): Promise<number> {
    return this.db.transaction(async (tx) => {
      const purged = await tx.rows<{ eventId: string }>(
        `DELETE FROM events WHERE status = 'delivered' AND created_at < ? AND ${NO_DELIVERY_PENDING}
           RETURNING event_id AS "eventId"`,
        [before],
      );
      for (const { eventId } of purged) await tx.run('DELETE FROM event_deliveries WHERE event_id = ?', [eventId]);
      return purged.length;
    });
  }

  async endpointState(endpointId: string): Promise<EndpointState> {
    return (await this.db.row<EndpointState>(ENDPOINT_BY_ID, [endpointId])) ?? freshEndpoint(endpointId);
  }

  countGone(endpointId: string, rule: GoneRule): Promise<EndpointState> {
    // One transaction: the answers of a fleet's instances are counted one after another, and the one
    // that makes the run long enough disables the endpoint.
    return this.db.transaction(async (tx) => {
      await tx.run(
        `INSERT INTO event_endpoints (endpoint_id, gone_in_a_row) VALUES (?, 1)
           ON CONFLICT (endpoint_id) DO UPDATE SET gone_in_a_row = event_endpoints.gone_in_a_row + 1`,
        [endpointId],
      );
      await tx.run(
        `UPDATE event_endpoints SET disabled_at = ?, disabled_reason = ?
           WHERE endpoint_id = ? AND disabled_at IS NULL AND gone_in_a_row >= ?`,
        [rule.at, rule.reason, endpointId, rule.after],
      );
      return (await tx.row<EndpointState>(ENDPOINT_BY_ID, [endpointId]))!;
    });
  }

  async clearGone(endpointId: string): Promise<void> {
    await this.db.run('UPDATE event_endpoints SET gone_in_a_row = 0 WHERE endpoint_id = ? AND gone_in_a_row > 0', [
      endpointId,
    ]);
  }

  async enableEndpoint(endpointId: string): Promise<EndpointState> {
    await this.db.run('DELETE FROM event_endpoints WHERE endpoint_id = ?', [endpointId]);
    return freshEndpoint(endpointId);
  }
}
