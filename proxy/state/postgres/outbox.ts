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
import { toAttempt, toAttemptRecord, toCheckout, toEndpointState, toEvent, toPayment } from '../sql-rows.ts';
import type { Database, Sql } from './database.ts';

/** Writes new events; called inside the transaction of the change that causes them. */
export async function insertEvents(tx: Sql, events: readonly NewEvent[]): Promise<void> {
  for (const event of events)
    await tx.run(
      `INSERT INTO events (event_id, type, transaction_id, checkout_id, sequence, created_at, payload, status, next_attempt_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, 'pending', $6)`,
      [
        event.eventId,
        event.type,
        event.transactionId,
        event.checkoutId,
        event.sequence,
        event.createdAt,
        event.payload,
      ],
    );
}

/** The outbox in PostgreSQL, beside the payments whose changes write to it. */
export class PostgresOutbox implements Outbox {
  constructor(private readonly db: Database) {}

  async claimDue(now: number, limit: number, leaseMs: number): Promise<StoredEvent[]> {
    // Rows another instance is claiming are skipped, not waited for: each attempt is made by one instance.
    const rows = await this.db.rows(
      `UPDATE events SET next_attempt_at = $1
         WHERE event_id IN (
           SELECT event_id FROM events WHERE status = 'pending' AND next_attempt_at <= $2
             ORDER BY next_attempt_at LIMIT $3 FOR UPDATE SKIP LOCKED)
         RETURNING *`,
      [now + leaseMs, now, limit],
    );
    return rows.map(toEvent);
  }

  async settle(eventId: string, attempt: EventAttemptRecord, outcome: AttemptOutcome): Promise<void> {
    await this.db.transaction(async (tx) => {
      await tx.run(
        'INSERT INTO event_attempts (event_id, at, duration_ms, status_code, error) VALUES ($1, $2, $3, $4, $5)',
        [eventId, attempt.at, attempt.durationMs, attempt.statusCode, attempt.error],
      );
      await tx.run(
        `DELETE FROM event_attempts WHERE event_id = $1 AND attempt_id NOT IN
           (SELECT attempt_id FROM event_attempts WHERE event_id = $1 ORDER BY at DESC, attempt_id DESC LIMIT ${ATTEMPTS_KEPT})`,
        [eventId],
      );
      await tx.run(
        `UPDATE events SET status = $1, attempts = attempts + 1, next_attempt_at = $2, delivered_at = $3,
             last_error = CASE WHEN $1 = 'delivered' THEN last_error ELSE $4 END
           WHERE event_id = $5`,
        [
          outcome.status,
          outcome.status === 'pending' ? outcome.retryAt : null,
          outcome.status === 'delivered' ? attempt.at : null,
          attempt.error ?? (attempt.statusCode === null ? null : `HTTP ${attempt.statusCode}`),
          eventId,
        ],
      );
    });
  }

  async listEvents(query: Parameters<Outbox['listEvents']>[0]): Promise<EventPage> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (query.status) where.push(`status = $${params.push(query.status)}`);
    if (query.type) where.push(`type = $${params.push(query.type)}`);
    if (query.cursor) {
      const after = decodeEventCursor(query.cursor);
      params.push(after.createdAt, after.eventId);
      where.push(`(created_at, event_id) < ($${params.length - 1}, $${params.length})`);
    }
    const rows = await this.db.rows(
      `SELECT * FROM events ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
         ORDER BY created_at DESC, event_id DESC LIMIT $${params.push(query.limit + 1)}`,
      params,
    );
    const events = rows.slice(0, query.limit).map(toEvent);
    const last = events[events.length - 1];
    return { events, nextCursor: rows.length > query.limit && last ? encodeEventCursor(last) : null };
  }

  async getEvent(eventId: string): Promise<{ event: StoredEvent; attempts: EventAttemptRecord[] } | undefined> {
    const row = await this.db.row('SELECT * FROM events WHERE event_id = $1', [eventId]);
    if (!row) return undefined;
    const attempts = await this.db.rows('SELECT * FROM event_attempts WHERE event_id = $1 ORDER BY at, attempt_id', [
      eventId,
    ]);
    return { event: toEvent(row), attempts: attempts.map(toAttemptRecord) };
  }

  async redeliver(eventId: string, now: number): Promise<StoredEvent | undefined> {
    const row = await this.db.row(
      "UPDATE events SET status = 'pending', next_attempt_at = $1 WHERE event_id = $2 RETURNING *",
      [now, eventId],
    );
    return row && toEvent(row);
  }

  redeliverFailed(since: number, now: number): Promise<number> {
    return this.db.run(
      "UPDATE events SET status = 'pending', next_attempt_at = $1 WHERE status = 'failed' AND created_at >= $2",
      [now, since],
    );
  }

  expireCheckouts(now: number, limit: number, rule: ExpiryRule): Promise<number> {
    return this.db.transaction(async (tx) => {
      // Checkouts another instance is settling are left to it.
      const due = await tx.rows(
        `SELECT * FROM checkouts WHERE NOT expiry_settled AND expires_at <= $1
           ORDER BY expires_at LIMIT $2 FOR UPDATE SKIP LOCKED`,
        [now, limit],
      );
      let settled = 0;
      for (const row of due) {
        const checkout = toCheckout(row);
        const attemptRow = checkout.currentAttempt
          ? await tx.row('SELECT * FROM attempts WHERE idempotency_key = $1', [checkout.currentAttempt])
          : undefined;
        const attempt = attemptRow && toAttempt(attemptRow);
        const paymentRow = attempt?.transactionId
          ? await tx.row('SELECT * FROM payments WHERE transaction_id = $1', [attempt.transactionId])
          : undefined;
        const decision = rule(checkout, attempt, paymentRow && toPayment(paymentRow));
        if (!decision.settled) continue;
        await tx.run('UPDATE checkouts SET expiry_settled = true WHERE checkout_id = $1', [checkout.checkoutId]);
        await insertEvents(tx, decision.events);
        settled++;
      }
      return settled;
    });
  }

  async depth(): Promise<{ pending: number; oldestCreatedAt: number | null }> {
    const row = (await this.db.row<{ pending: number; oldest: number | null }>(
      "SELECT count(*) AS pending, min(created_at) AS oldest FROM events WHERE status = 'pending'",
    ))!;
    return { pending: row.pending, oldestCreatedAt: row.oldest };
  }

  purgeDelivered(before: number): Promise<number> {
    return this.db.run("DELETE FROM events WHERE status = 'delivered' AND created_at < $1", [before]);
  }

  async endpointState(endpointId: string): Promise<EndpointState> {
    const row = await this.db.row('SELECT * FROM event_endpoints WHERE endpoint_id = $1', [endpointId]);
    return row ? toEndpointState(row) : freshEndpoint(endpointId);
  }

  async countGone(endpointId: string, rule: GoneRule): Promise<EndpointState> {
    // The SET expressions read the row as it was (e.): the run before this answer.
    const row = await this.db.row(
      `INSERT INTO event_endpoints AS e (endpoint_id, gone_in_a_row, disabled_at, disabled_reason)
         VALUES ($1, 1, CASE WHEN $2::int <= 1 THEN $3::bigint END, CASE WHEN $2::int <= 1 THEN $4::text END)
       ON CONFLICT (endpoint_id) DO UPDATE SET
         gone_in_a_row = e.gone_in_a_row + 1,
         disabled_at = CASE WHEN e.disabled_at IS NULL AND e.gone_in_a_row + 1 >= $2 THEN $3::bigint ELSE e.disabled_at END,
         disabled_reason = CASE WHEN e.disabled_at IS NULL AND e.gone_in_a_row + 1 >= $2 THEN $4::text ELSE e.disabled_reason END
       RETURNING *`,
      [endpointId, rule.after, rule.at, rule.reason],
    );
    return toEndpointState(row!);
  }

  async clearGone(endpointId: string): Promise<void> {
    await this.db.run('UPDATE event_endpoints SET gone_in_a_row = 0 WHERE endpoint_id = $1 AND gone_in_a_row > 0', [
      endpointId,
    ]);
  }

  async enableEndpoint(endpointId: string): Promise<EndpointState> {
    await this.db.run('DELETE FROM event_endpoints WHERE endpoint_id = $1', [endpointId]);
    return freshEndpoint(endpointId);
  }
}
