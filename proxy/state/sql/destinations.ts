/**
 * The event destinations in the database (the contract: ../destinations.ts): kept in the endpoints'
 * table (a url; KASSA_EVENTS_URL's row has none), each with its queue in `event_deliveries`, fanned
 * out from the event in the transaction that writes it (`insertEvents` of outbox.ts).
 */
import { randomBytes } from 'node:crypto';
import {
  queuedAt,
  takes,
  type DeliveryPage,
  type DeliveryRecord,
  type DestinationPatch,
  type DestinationRecord,
  type DestinationStore,
  type QueuedDelivery,
} from '../destinations.ts';
import { decodeEventCursor, type AttemptOutcome, type EventAttemptRecord, type NewEvent } from '../outbox.ts';
import { pageAfter } from '../cursors.ts';
import { fromJson, type Database, type Dialect, type Row, type Sql } from './database.ts';
import { column, Columns } from './rows.ts';

const DESTINATION = new Columns<Row>('url description enabledEvents secrets createdAt disabledAt disabledReason');
const DESTINATIONS = `SELECT endpoint_id AS "destinationId", ${DESTINATION.select} FROM event_endpoints WHERE url IS NOT NULL`;
const DELIVERY = new Columns<DeliveryRecord>(`createdAt status attempts nextAttemptAt deliveredAt lastAttemptAt
  lastStatusCode lastDurationMs lastError`);

/** A destination's fields as their columns hold them: the lists as JSON. */
const written = (fields: DestinationPatch): Row => ({
  ...fields,
  enabledEvents: fields.enabledEvents && JSON.stringify(fields.enabledEvents),
  secrets: fields.secrets && JSON.stringify(fields.secrets),
});

/** A row of `DESTINATIONS` as its record: the JSON columns parsed. */
const destinationOf = (row: Row): DestinationRecord => ({
  ...(row as unknown as DestinationRecord),
  enabledEvents: fromJson<string[]>(row.enabledEvents),
  secrets: fromJson<DestinationRecord['secrets']>(row.secrets),
});

/**
 * The destinations of the events a transaction writes, disabled ones included (they keep their events
 * until enabled or skipped): for an event type, the ids of those that take it. Each is held until the
 * transaction ends, so that none is removed meanwhile: a removal waits, then takes the new deliveries
 * with it (ON DELETE CASCADE); one under way already is waited for and the destination passed over.
 * No delivery is ever left for a destination that is gone.
 */
export async function destinationsTaking(tx: Sql, dialect: Dialect): Promise<(type: string) => string[]> {
  const rows = await tx.rows<{ id: string; enabledEvents: string }>(
    `SELECT endpoint_id AS id, enabled_events AS "enabledEvents" FROM event_endpoints WHERE url IS NOT NULL
       ORDER BY endpoint_id${dialect.forKeyShare}`,
  );
  const destinations = rows.map((row) => ({ id: row.id, enabledEvents: fromJson<string[]>(row.enabledEvents) }));
  return (type) => destinations.filter((destination) => takes(destination.enabledEvents, type)).map(({ id }) => id);
}

/**
 * Holds the queues of the destinations until the transaction ends, so that deliveries join each queue
 * in the order their transactions commit (`insertDeliveries`). Taken in one order, the ids sorted, so
 * that two transactions fanning out to the same destinations never wait for each other in a circle.
 * PostgreSQL's advisory locks; SQLite's transactions are serial already (BEGIN IMMEDIATE).
 */
export async function holdQueues(tx: Sql, dialect: Dialect, destinationIds: readonly string[]): Promise<void> {
  for (const destinationId of [...new Set(destinationIds)].sort())
    await dialect.lock(tx, `event-destination:${destinationId}`);
}

/**
 * A pending delivery of the event to each of the destinations, in the transaction that writes it and
 * holds their queues (`holdQueues`): each after the last delivery of its destination (`queuedAt`).
 */
export async function insertDeliveries(tx: Sql, event: NewEvent, destinationIds: readonly string[]): Promise<void> {
  for (const destinationId of destinationIds) {
    // READ COMMITTED reads as of this statement: the deliveries of whoever held the queue before are there.
    const { last } = (await tx.row<{ last: number | null }>(
      'SELECT max(created_at) AS last FROM event_deliveries WHERE destination_id = ?',
      [destinationId],
    ))!;
    await tx.run(
      `INSERT INTO event_deliveries (destination_id, event_id, created_at, status, next_attempt_at)
         VALUES (?, ?, ?, 'pending', ?)`,
      [destinationId, event.eventId, queuedAt(event.createdAt, last), event.createdAt],
    );
  }
}

/** Delivered events are purged only once no destination still waits for them. */
export const NO_DELIVERY_PENDING =
  "NOT EXISTS (SELECT 1 FROM event_deliveries d WHERE d.event_id = events.event_id AND d.status = 'pending')";

export class SqlDestinations implements DestinationStore {
  /** This instance's name in the leases it takes, so that it ends only its own. */
  private readonly holder = randomBytes(12).toString('base64url');

  constructor(private readonly db: Database) {}

  async create(record: DestinationRecord): Promise<void> {
    await this.db.run(
      `INSERT INTO event_endpoints (endpoint_id, ${DESTINATION.names}) VALUES (?, ${DESTINATION.marks})`,
      [record.destinationId, ...DESTINATION.values(written(record))],
    );
  }

  async list(): Promise<DestinationRecord[]> {
    return (await this.db.rows(`${DESTINATIONS} ORDER BY created_at, endpoint_id`)).map(destinationOf);
  }

  async get(destinationId: string): Promise<DestinationRecord | undefined> {
    const row = await this.db.row(`${DESTINATIONS} AND endpoint_id = ?`, [destinationId]);
    return row && destinationOf(row);
  }

  async update(destinationId: string, patch: DestinationPatch): Promise<DestinationRecord | undefined> {
    const given = Object.entries(written(patch)).filter(([, value]) => value !== undefined);
    // Enabling starts the run of 410 Gone answers over.
    const sets = [
      ...given.map(([field]) => `${column(field)} = ?`),
      ...(patch.disabledAt === null ? ['gone_in_a_row = 0'] : []),
    ];
    if (sets.length > 0)
      await this.db.run(`UPDATE event_endpoints SET ${sets.join(', ')} WHERE endpoint_id = ? AND url IS NOT NULL`, [
        ...given.map(([, value]) => value),
        destinationId,
      ]);
    return this.get(destinationId);
  }

  async remove(destinationId: string): Promise<boolean> {
    // Its deliveries go with it (ON DELETE CASCADE), those of an event being written too (destinationsTaking).
    return (
      (await this.db.run('DELETE FROM event_endpoints WHERE endpoint_id = ? AND url IS NOT NULL', [destinationId])) > 0
    );
  }

  async pendingCounts(): Promise<Map<string, number>> {
    const rows = await this.db.rows<{ id: string; pending: number }>(
      "SELECT destination_id AS id, count(*) AS pending FROM event_deliveries WHERE status = 'pending' GROUP BY destination_id",
    );
    return new Map(rows.map((row) => [row.id, Number(row.pending)]));
  }

  claimHead(destinationId: string, now: number, limit: number, leaseMs: number): Promise<QueuedDelivery[]> {
    return this.db.transaction(async (tx) => {
      // Read first: a destination whose head is not due (failing, waiting for its retry) costs no write.
      const rows = await tx.rows<QueuedDelivery & { nextAttemptAt: number }>(
        `SELECT d.event_id AS "eventId", d.created_at AS "createdAt", d.attempts, d.next_attempt_at AS "nextAttemptAt",
             e.type, e.payload
           FROM event_deliveries d JOIN events e ON e.event_id = d.event_id
           WHERE d.destination_id = ? AND d.status = 'pending'
           ORDER BY d.created_at, d.event_id LIMIT ?`,
        [destinationId, limit],
      );
      const due = rows.findIndex((row) => row.nextAttemptAt > now);
      const head = due === -1 ? rows : rows.slice(0, due);
      if (head.length === 0) return [];
      // One instance delivers a destination at a time: the lease is taken only where none is held.
      const leased = await tx.run(
        `UPDATE event_endpoints SET lease_until = ?, lease_holder = ?
           WHERE endpoint_id = ? AND url IS NOT NULL AND disabled_at IS NULL AND lease_until <= ?`,
        [now + leaseMs, this.holder, destinationId, now],
      );
      return leased === 0 ? [] : head.map(({ nextAttemptAt: _, ...delivery }) => delivery);
    });
  }

  async releaseLease(destinationId: string): Promise<void> {
    // Only while this instance holds it: one whose lease ran out may have been taken over meanwhile.
    await this.db.run('UPDATE event_endpoints SET lease_until = 0 WHERE endpoint_id = ? AND lease_holder = ?', [
      destinationId,
      this.holder,
    ]);
  }

  async settle(
    destinationId: string,
    eventId: string,
    attempt: EventAttemptRecord,
    outcome: AttemptOutcome,
  ): Promise<void> {
    await this.db.run(
      `UPDATE event_deliveries SET status = ?, attempts = attempts + 1, next_attempt_at = ?, delivered_at = ?,
           last_attempt_at = ?, last_status_code = ?, last_duration_ms = ?, last_error = ?
         WHERE destination_id = ? AND event_id = ? AND status = 'pending'`,
      [
        outcome.status,
        outcome.status === 'pending' ? outcome.retryAt : null,
        outcome.status === 'delivered' ? attempt.at : null,
        attempt.at,
        attempt.statusCode,
        attempt.durationMs,
        attempt.error,
        destinationId,
        eventId,
      ],
    );
  }

  skipPending(destinationId: string): Promise<number> {
    return this.db.run(
      "UPDATE event_deliveries SET status = 'skipped', next_attempt_at = NULL WHERE destination_id = ? AND status = 'pending'",
      [destinationId],
    );
  }

  async deliveries(destinationId: string, query: Parameters<DestinationStore['deliveries']>[1]): Promise<DeliveryPage> {
    const where = ['d.destination_id = ?'];
    const params: unknown[] = [destinationId];
    if (query.status) {
      where.push('d.status = ?');
      params.push(query.status);
    }
    if (query.cursor) {
      const after = decodeEventCursor(query.cursor);
      where.push('(d.created_at, d.event_id) < (?, ?)');
      params.push(after.createdAt, after.eventId);
    }
    const rows = await this.db.rows<DeliveryRecord>(
      `SELECT d.event_id AS "eventId", e.type, ${DELIVERY.select.replace(/(^|, )/g, '$1d.')}
         FROM event_deliveries d JOIN events e ON e.event_id = d.event_id
         WHERE ${where.join(' AND ')} ORDER BY d.created_at DESC, d.event_id DESC LIMIT ?`,
      [...params, query.limit + 1],
    );
    const { items: deliveries, nextCursor } = pageAfter(rows, query.limit, false, (last) => [
      last.createdAt,
      last.eventId,
    ]);
    return { deliveries, nextCursor };
  }
}
