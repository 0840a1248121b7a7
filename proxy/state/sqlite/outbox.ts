import type Database from 'better-sqlite3';
import {
  ATTEMPTS_KEPT,
  decodeEventCursor,
  encodeEventCursor,
  freshEndpoint,
  type AttemptOutcome,
  type EndpointState,
  type EventAttemptRecord,
  type EventPage,
  type ExpiryRule,
  type GoneRule,
  type NewEvent,
  type Outbox,
  type StoredEvent,
} from '../outbox.ts';
import { toAttempt, toAttemptRecord, toCheckout, toEndpointState, toEvent, toPayment, type Row } from '../sql-rows.ts';
import { fanOut, NO_DELIVERY_PENDING } from './destinations.ts';

/**
 * Writes new events, and a delivery of each to every destination that takes it; called inside the
 * transaction of the change that causes them.
 */
export function insertEvents(sql: (text: string) => Database.Statement, events: readonly NewEvent[]): void {
  for (const event of events) {
    sql(
      `INSERT INTO events (event_id, type, transaction_id, checkout_id, sequence, created_at, payload, status, next_attempt_at)
         VALUES (@eventId, @type, @transactionId, @checkoutId, @sequence, @createdAt, @payload, 'pending', @createdAt)`,
    ).run(event);
    fanOut(sql, event);
  }
}

/** The outbox in the SQLite file, beside the payments whose changes write to it. */
export class SqliteOutbox implements Outbox {
  constructor(
    private readonly db: Database.Database,
    private readonly sql: (text: string) => Database.Statement,
  ) {}

  async claimDue(now: number, limit: number, leaseMs: number): Promise<StoredEvent[]> {
    const rows = this.sql(
      `UPDATE events SET next_attempt_at = ?
         WHERE event_id IN (SELECT event_id FROM events WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at LIMIT ?)
         RETURNING *`,
    ).all(now + leaseMs, now, limit) as Row[];
    return rows.map(toEvent);
  }

  async settle(eventId: string, attempt: EventAttemptRecord, outcome: AttemptOutcome): Promise<void> {
    this.db.transaction(() => {
      this.sql('INSERT INTO event_attempts (event_id, at, duration_ms, status_code, error) VALUES (?, ?, ?, ?, ?)').run(
        eventId,
        attempt.at,
        attempt.durationMs,
        attempt.statusCode,
        attempt.error,
      );
      this.sql(
        `DELETE FROM event_attempts WHERE event_id = ? AND rowid NOT IN
           (SELECT rowid FROM event_attempts WHERE event_id = ? ORDER BY at DESC LIMIT ${ATTEMPTS_KEPT})`,
      ).run(eventId, eventId);
      this.sql(
        `UPDATE events SET status = ?, attempts = attempts + 1, next_attempt_at = ?, delivered_at = ?,
             last_error = CASE WHEN ? = 'delivered' THEN last_error ELSE ? END
           WHERE event_id = ?`,
      ).run(
        outcome.status,
        outcome.status === 'pending' ? outcome.retryAt : null,
        outcome.status === 'delivered' ? attempt.at : null,
        outcome.status,
        attempt.error ?? (attempt.statusCode === null ? null : `HTTP ${attempt.statusCode}`),
        eventId,
      );
    })();
  }

  async listEvents(query: Parameters<Outbox['listEvents']>[0]): Promise<EventPage> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (query.status) {
      where.push('status = ?');
      params.push(query.status);
    }
    if (query.type) {
      where.push('type = ?');
      params.push(query.type);
    }
    if (query.cursor) {
      const after = decodeEventCursor(query.cursor);
      where.push('(created_at, event_id) < (?, ?)');
      params.push(after.createdAt, after.eventId);
    }
    const rows = this.sql(
      `SELECT * FROM events ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY created_at DESC, event_id DESC LIMIT ?`,
    ).all(...params, query.limit + 1) as Row[];
    const events = rows.slice(0, query.limit).map(toEvent);
    const last = events[events.length - 1];
    return { events, nextCursor: rows.length > query.limit && last ? encodeEventCursor(last) : null };
  }

  async getEvent(eventId: string): Promise<{ event: StoredEvent; attempts: EventAttemptRecord[] } | undefined> {
    const row = this.sql('SELECT * FROM events WHERE event_id = ?').get(eventId) as Row | undefined;
    if (!row) return undefined;
    const attempts = this.sql('SELECT * FROM event_attempts WHERE event_id = ? ORDER BY at, rowid').all(
      eventId,
    ) as Row[];
    return { event: toEvent(row), attempts: attempts.map(toAttemptRecord) };
  }

  async redeliver(eventId: string, now: number): Promise<StoredEvent | undefined> {
    const row = this.sql(
      "UPDATE events SET status = 'pending', next_attempt_at = ? WHERE event_id = ? RETURNING *",
    ).get(now, eventId) as Row | undefined;
    return row && toEvent(row);
  }

  async redeliverFailed(since: number, now: number): Promise<number> {
    return this.sql(
      "UPDATE events SET status = 'pending', next_attempt_at = ? WHERE status = 'failed' AND created_at >= ?",
    ).run(now, since).changes;
  }

  async expireCheckouts(now: number, limit: number, rule: ExpiryRule): Promise<number> {
    return this.db
      .transaction(() => {
        const due = this.sql(
          'SELECT * FROM checkouts WHERE expiry_settled = 0 AND expires_at <= ? ORDER BY expires_at LIMIT ?',
        ).all(now, limit) as Row[];
        let settled = 0;
        for (const row of due) {
          const checkout = toCheckout(row);
          const attemptRow = checkout.currentAttempt
            ? (this.sql('SELECT * FROM attempts WHERE idempotency_key = ?').get(checkout.currentAttempt) as
                Row | undefined)
            : undefined;
          const attempt = attemptRow && toAttempt(attemptRow);
          const paymentRow = attempt?.transactionId
            ? (this.sql('SELECT * FROM payments WHERE transaction_id = ?').get(attempt.transactionId) as
                Row | undefined)
            : undefined;
          const decision = rule(checkout, attempt, paymentRow && toPayment(paymentRow));
          if (!decision.settled) continue;
          this.sql('UPDATE checkouts SET expiry_settled = 1 WHERE checkout_id = ?').run(checkout.checkoutId);
          insertEvents(this.sql, decision.events);
          settled++;
        }
        return settled;
      })
      .immediate();
  }

  async depth(): Promise<{ pending: number; oldestCreatedAt: number | null }> {
    const row = this.sql(
      "SELECT COUNT(*) AS pending, MIN(created_at) AS oldest FROM events WHERE status = 'pending'",
    ).get() as { pending: number; oldest: number | null };
    return { pending: row.pending, oldestCreatedAt: row.oldest };
  }

  async purgeDelivered(before: number): Promise<number> {
    return this.db.transaction(() => {
      const purged = this.sql(
        `DELETE FROM events WHERE status = 'delivered' AND created_at < ? AND ${NO_DELIVERY_PENDING} RETURNING event_id`,
      ).all(before) as Array<{ event_id: string }>;
      for (const { event_id } of purged) this.sql('DELETE FROM event_deliveries WHERE event_id = ?').run(event_id);
      return purged.length;
    })();
  }

  async endpointState(endpointId: string): Promise<EndpointState> {
    const row = this.sql('SELECT * FROM event_endpoints WHERE endpoint_id = ?').get(endpointId) as Row | undefined;
    return row ? toEndpointState(row) : freshEndpoint(endpointId);
  }

  async countGone(endpointId: string, rule: GoneRule): Promise<EndpointState> {
    // The SET expressions read the row as it was: the run before this answer.
    const row = this.sql(
      `INSERT INTO event_endpoints (endpoint_id, gone_in_a_row, disabled_at, disabled_reason)
         VALUES (@endpointId, 1, CASE WHEN @after <= 1 THEN @at END, CASE WHEN @after <= 1 THEN @reason END)
       ON CONFLICT (endpoint_id) DO UPDATE SET
         gone_in_a_row = gone_in_a_row + 1,
         disabled_at = CASE WHEN disabled_at IS NULL AND gone_in_a_row + 1 >= @after THEN @at ELSE disabled_at END,
         disabled_reason = CASE WHEN disabled_at IS NULL AND gone_in_a_row + 1 >= @after THEN @reason ELSE disabled_reason END
       RETURNING *`,
    ).get({ endpointId, ...rule }) as Row;
    return toEndpointState(row);
  }

  async clearGone(endpointId: string): Promise<void> {
    this.sql('UPDATE event_endpoints SET gone_in_a_row = 0 WHERE endpoint_id = ? AND gone_in_a_row > 0').run(
      endpointId,
    );
  }

  async enableEndpoint(endpointId: string): Promise<EndpointState> {
    this.sql('DELETE FROM event_endpoints WHERE endpoint_id = ?').run(endpointId);
    return freshEndpoint(endpointId);
  }
}
