/** The store's records as table rows: columns are their fields in snake_case, read back under the fields' names. */
import type { EndpointState, EventAttemptRecord, NewEvent, StoredEvent } from '../outbox.ts';
import type { PurchaseAuditRecord } from '../purchases.ts';
import type { Resolution, Unverifiable } from '../reconciliation.ts';
import type { Attempt, Checkout, Payment } from '../records.ts';
import { fromJson, type Sql } from './database.ts';

export class Columns<T> {
  private readonly fields: Array<keyof T & string>;
  /** `transaction_id, status_token, …` */
  readonly names: string;
  /** `transaction_id AS "transactionId", …`: a row as the record itself. */
  readonly select: string;
  /** `?, ?, …`, one for each column. */
  readonly marks: string;
  /** `transaction_id = ?, …` */
  readonly assignments: string;

  constructor(fields: string) {
    this.fields = fields.trim().split(/\s+/) as Array<keyof T & string>;
    const columns = this.fields.map((field) => field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`));
    this.names = columns.join(', ');
    this.select = columns.map((column, i) => `${column} AS "${this.fields[i]!}"`).join(', ');
    this.marks = columns.map(() => '?').join(', ');
    this.assignments = columns.map((column) => `${column} = ?`).join(', ');
  }

  values(record: T): unknown[] {
    return this.fields.map((field) => record[field]);
  }
}

export const CHECKOUT = new Columns<Checkout>(
  'checkoutId amount currencyCode reference metadata createdAt expiresAt currentAttempt',
);
export const ATTEMPT = new Columns<Attempt>(
  'idempotencyKey fingerprint checkoutId statusToken state transactionId createdAt',
);
export const PAYMENT = new Columns<Payment>(`transactionId statusToken idempotencyKey checkoutId amount currencyCode
  reference environment flowUrl status networkStatus networkPaymentId paymentRail providerId endToEndId returnUrl
  initiatedAt updatedAt completedAt createdAt lastCheckedAt revision`);
export const NEW_EVENT = new Columns<NewEvent>('eventId type transactionId checkoutId sequence createdAt payload');
export const EVENT = new Columns<StoredEvent>(`eventId type transactionId checkoutId sequence createdAt payload status
  attempts nextAttemptAt deliveredAt lastError`);
export const EVENT_ATTEMPT = new Columns<EventAttemptRecord>('at durationMs statusCode error');
export const ENDPOINT = new Columns<EndpointState>('endpointId goneInARow disabledAt disabledReason');
export const UNVERIFIABLE = new Columns<Unverifiable>('transactionId reason since');
export const RESOLUTION = new Columns<Resolution>('transactionId previousStatus status note resolvedAt');
export const PURCHASE_AUDIT = new Columns<PurchaseAuditRecord>('action note at previousState state requestId');

/**
 * A search's rows, newest first (by the `time` column, `created_at` unless named, then the `id`
 * column): those that pass each filter whose value is given (`{ 'status = ?': status }`; not
 * undefined nor empty) and come after the row a cursor names (its time and id), `limit + 1` of them
 * so that a next page can be told.
 */
export class NewestFirst<T> {
  constructor(
    /** `SELECT … FROM table` */
    private readonly from: string,
    private readonly id: string,
    private readonly time = 'created_at',
  ) {}

  rows(sql: Sql, after: readonly [number, string] | undefined, limit: number, filters: Record<string, unknown>) {
    const given = Object.entries(filters).filter(([, value]) => value !== undefined && value !== '');
    const clauses = given.map(([clause]) => clause);
    if (after) clauses.push(`(${this.time}, ${this.id}) < (?, ?)`);
    return sql.rows<T>(
      `${this.from} ${clauses.length ? `WHERE ${clauses.join(' AND ')}` : ''} ORDER BY ${this.time} DESC, ${this.id} DESC LIMIT ?`,
      [...given.map(([, value]) => value), ...(after ?? []), limit + 1],
    );
  }
}

const CHECKOUT_BY_ID = `SELECT ${CHECKOUT.select} FROM checkouts WHERE checkout_id = ?`;
const ATTEMPT_BY_KEY = `SELECT ${ATTEMPT.select} FROM attempts WHERE idempotency_key = ?`;
const PAYMENT_BY_ID = `SELECT ${PAYMENT.select} FROM payments WHERE transaction_id = ?`;

export const checkoutOf = (sql: Sql, checkoutId: string) => sql.row<Checkout>(CHECKOUT_BY_ID, [checkoutId]);

/** One attempt; `forUpdate` (the dialect's) when the transaction goes on to change it. */
export const attemptOf = (sql: Sql, idempotencyKey: string, forUpdate = '') =>
  sql.row<Attempt>(ATTEMPT_BY_KEY + forUpdate, [idempotencyKey]);

export const paymentOf = (sql: Sql, transactionId: string, forUpdate = '') =>
  sql.row<Payment>(PAYMENT_BY_ID + forUpdate, [transactionId]);

/** A page of a list read `limit + 1` deep: a row more means a next page, from the last row of this one. */
export const page = <T>(rows: T[], limit: number, cursorOf: (last: T) => string) => ({
  items: rows.slice(0, limit),
  nextCursor: rows.length > limit ? cursorOf(rows[limit - 1]!) : null,
});

/** A row of a table that keeps each record whole, as JSON, beside the columns its lookups need. */
export type RecordRow = { record: string };

export const recordOf = <T>(row: RecordRow | undefined): T | undefined => (row ? fromJson<T>(row.record) : undefined);
export const recordsOf = <T>(rows: RecordRow[]): T[] => rows.map((row) => fromJson<T>(row.record));
