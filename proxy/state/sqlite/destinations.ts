/**
 * The event destinations in the SQLite file (the contract: ../destinations.ts). Every statement about
 * destinations and their deliveries is here, the fan-out `insertEvents` runs included, so that the
 * whole of it can move to another SQL store as one piece.
 */
import type Database from 'better-sqlite3';
import type { DeliveryStatus } from '../../../schemas/event-destinations.ts';
import type {
  DeliveryPage,
  DestinationPatch,
  DestinationRecord,
  DestinationStore,
  QueuedDelivery,
} from '../destinations.ts';
import {
  decodeEventCursor,
  encodeEventCursor,
  type AttemptOutcome,
  type EventAttemptRecord,
  type NewEvent,
} from '../outbox.ts';
import { toDelivery, toDestination, type Row } from '../sql-rows.ts';

type Sql = (text: string) => Database.Statement;

/**
 * One delivery per destination that takes the event's type, disabled ones included (they keep their
 * events until enabled or skipped); called inside the transaction that writes the event.
 */
export function fanOut(sql: Sql, event: NewEvent): void {
  sql(
    `INSERT INTO event_deliveries (destination_id, event_id, created_at, status, next_attempt_at)
       SELECT endpoint_id, @eventId, @createdAt, 'pending', @createdAt FROM event_endpoints
       WHERE url IS NOT NULL AND EXISTS (SELECT 1 FROM json_each(enabled_events) WHERE value IN ('*', @type))`,
  ).run({ eventId: event.eventId, createdAt: event.createdAt, type: event.type });
}

/** Delivered events are purged only once no destination still waits for them. */
export const NO_DELIVERY_PENDING =
  "NOT EXISTS (SELECT 1 FROM event_deliveries d WHERE d.event_id = events.event_id AND d.status = 'pending')";

export class SqliteDestinations implements DestinationStore {
  constructor(
    private readonly db: Database.Database,
    private readonly sql: Sql,
  ) {}

  async create(record: DestinationRecord): Promise<void> {
    this.sql(
      `INSERT INTO event_endpoints (endpoint_id, url, description, enabled_events, secrets, created_at, disabled_at, disabled_reason)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ).run(
      record.destinationId,
      record.url,
      record.description,
      JSON.stringify(record.enabledEvents),
      JSON.stringify(record.secrets),
      record.createdAt,
      record.disabledAt,
      record.disabledReason,
    );
  }

  async list(): Promise<DestinationRecord[]> {
    const rows = this.sql('SELECT * FROM event_endpoints WHERE url IS NOT NULL ORDER BY created_at, endpoint_id').all();
    return (rows as Row[]).map(toDestination);
  }

  async get(destinationId: string): Promise<DestinationRecord | undefined> {
    const row = this.sql('SELECT * FROM event_endpoints WHERE endpoint_id = ? AND url IS NOT NULL').get(destinationId);
    return row ? toDestination(row as Row) : undefined;
  }

  async update(destinationId: string, patch: DestinationPatch): Promise<DestinationRecord | undefined> {
    const columns: Record<keyof DestinationPatch, string> = {
      url: 'url',
      description: 'description',
      enabledEvents: 'enabled_events',
      secrets: 'secrets',
      disabledAt: 'disabled_at',
      disabledReason: 'disabled_reason',
    };
    const keys = (Object.keys(patch) as Array<keyof DestinationPatch>).filter((key) => patch[key] !== undefined);
    const values = keys.map((key) =>
      key === 'enabledEvents' || key === 'secrets' ? JSON.stringify(patch[key]) : patch[key],
    );
    // Enabling starts the run of 410 Gone answers over.
    const sets = [
      ...keys.map((key) => `${columns[key]} = ?`),
      ...(patch.disabledAt === null ? ['gone_in_a_row = 0'] : []),
    ];
    if (sets.length === 0) return this.get(destinationId);
    const row = this.sql(
      `UPDATE event_endpoints SET ${sets.join(', ')} WHERE endpoint_id = ? AND url IS NOT NULL RETURNING *`,
    ).get(...values, destinationId);
    return row ? toDestination(row as Row) : undefined;
  }

  async remove(destinationId: string): Promise<boolean> {
    return this.db.transaction(() => {
      this.sql('DELETE FROM event_deliveries WHERE destination_id = ?').run(destinationId);
      return (
        this.sql('DELETE FROM event_endpoints WHERE endpoint_id = ? AND url IS NOT NULL').run(destinationId).changes > 0
      );
    })();
  }

  async pendingCounts(): Promise<Map<string, number>> {
    const rows = this.sql(
      "SELECT destination_id, COUNT(*) AS pending FROM event_deliveries WHERE status = 'pending' GROUP BY destination_id",
    ).all() as Array<{ destination_id: string; pending: number }>;
    return new Map(rows.map((row) => [row.destination_id, row.pending]));
  }

  async claimHead(destinationId: string, now: number, limit: number, leaseMs: number): Promise<QueuedDelivery[]> {
    return this.db
      .transaction(() => {
        // Read first: a destination whose head is not due (failing, waiting for its retry) costs no write.
        const rows = this.sql(
          `SELECT d.event_id, d.created_at, d.attempts, d.next_attempt_at, e.type, e.payload
             FROM event_deliveries d JOIN events e ON e.event_id = d.event_id
             WHERE d.destination_id = ? AND d.status = 'pending'
             ORDER BY d.created_at, d.event_id LIMIT ?`,
        ).all(destinationId, limit) as Row[];
        const due = rows.findIndex((row) => (row.next_attempt_at as number) > now);
        const head = due === -1 ? rows : rows.slice(0, due);
        if (head.length === 0) return [];
        const leased = this.sql(
          `UPDATE event_endpoints SET lease_until = ?
             WHERE endpoint_id = ? AND url IS NOT NULL AND disabled_at IS NULL AND lease_until <= ?`,
        ).run(now + leaseMs, destinationId, now).changes;
        if (leased === 0) return [];
        return head.map((row) => ({
          eventId: row.event_id as string,
          type: row.type as QueuedDelivery['type'],
          payload: row.payload as string,
          createdAt: row.created_at as number,
          attempts: row.attempts as number,
        }));
      })
      .immediate();
  }

  async releaseLease(destinationId: string): Promise<void> {
    this.sql('UPDATE event_endpoints SET lease_until = 0 WHERE endpoint_id = ?').run(destinationId);
  }

  async settle(
    destinationId: string,
    eventId: string,
    attempt: EventAttemptRecord,
    outcome: AttemptOutcome,
  ): Promise<void> {
    this.sql(
      `UPDATE event_deliveries SET status = ?, attempts = attempts + 1, next_attempt_at = ?, delivered_at = ?,
           last_attempt_at = ?, last_status_code = ?, last_duration_ms = ?, last_error = ?
         WHERE destination_id = ? AND event_id = ? AND status = 'pending'`,
    ).run(
      outcome.status,
      outcome.status === 'pending' ? outcome.retryAt : null,
      outcome.status === 'delivered' ? attempt.at : null,
      attempt.at,
      attempt.statusCode,
      attempt.durationMs,
      attempt.error,
      destinationId,
      eventId,
    );
  }

  async skipPending(destinationId: string): Promise<number> {
    return this.sql(
      "UPDATE event_deliveries SET status = 'skipped', next_attempt_at = NULL WHERE destination_id = ? AND status = 'pending'",
    ).run(destinationId).changes;
  }

  async deliveries(
    destinationId: string,
    query: { status?: DeliveryStatus | undefined; limit: number; cursor?: string | undefined },
  ): Promise<DeliveryPage> {
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
    const rows = this.sql(
      `SELECT d.*, e.type FROM event_deliveries d JOIN events e ON e.event_id = d.event_id
         WHERE ${where.join(' AND ')} ORDER BY d.created_at DESC, d.event_id DESC LIMIT ?`,
    ).all(...params, query.limit + 1) as Row[];
    const deliveries = rows.slice(0, query.limit).map(toDelivery);
    const last = deliveries[deliveries.length - 1];
    return { deliveries, nextCursor: rows.length > query.limit && last ? encodeEventCursor(last) : null };
  }
}
