/** The store's records as table rows: columns are their fields in snake_case, read back under the fields' names. */
import type { EndpointState, EventAttemptRecord, NewEvent, StoredEvent } from '../outbox.ts';
import type { PurchaseAuditRecord } from '../purchases.ts';
import type { Resolution, Unverifiable } from '../reconciliation.ts';
import type { Attempt, Checkout, Payment } from '../records.ts';
import { fromJson, type Database, type Row, type Sql } from './database.ts';

/** A field's column: its name in snake_case. */
export const column = (field: string) => field.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

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
    const columns = this.fields.map(column);
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
    private readonly read = (row: Row) => row as T,
  ) {}

  async rows(sql: Sql, after: readonly [number, string] | undefined, limit: number, filters: Record<string, unknown>) {
    const given = Object.entries(filters).filter(([, value]) => value !== undefined && value !== '');
    const clauses = given.map(([clause]) => clause);
    if (after) clauses.push(`(${this.time}, ${this.id}) < (?, ?)`);
    const rows = await sql.rows(
      `${this.from} ${clauses.length ? `WHERE ${clauses.join(' AND ')}` : ''} ORDER BY ${this.time} DESC, ${this.id} DESC LIMIT ?`,
      [...given.map(([, value]) => value), ...(after ?? []), limit + 1],
    );
    return rows.map(this.read);
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

/** A row of a table that keeps each record whole, as JSON, beside the columns its lookups need. */
export type RecordRow = { record: string };

/**
 * A table that keeps each record whole, as JSON (`record`), beside the columns its lookups, orders and
 * unique rules need: the record's fields of those names (or values given beside it), the first its key.
 * The columns are written with the record each time, so that they never tell another story.
 */
export class RecordTable<T> {
  private readonly columns: Columns<Row>;
  private readonly insertText: string;
  private readonly saveText: string;
  /** `key_column = ?` */
  private readonly keyIs: string;
  /** `SELECT record FROM table` */
  readonly from: string;

  constructor(
    table: string,
    fields: string,
    /** The record of a row of `from`: its JSON, unless a column read beside it (`selected`) says more. */
    readonly read: (row: Row) => T = (row) => fromJson<T>(row.record),
    selected = 'record',
  ) {
    this.columns = new Columns<Row>(fields);
    const [key, ...rest] = this.columns.names.split(', ');
    this.keyIs = `${key} = ?`;
    this.from = `SELECT ${selected} FROM ${table}`;
    this.insertText = `INSERT INTO ${table} (${this.columns.names}, record) VALUES (${this.columns.marks}, ?)`;
    this.saveText = `UPDATE ${table} SET ${rest.map((column) => `${column} = ?, `).join('')}record = ? WHERE ${this.keyIs}`;
  }

  /** A search of the records, newest first. */
  newestFirst(id: string, time?: string): NewestFirst<T> {
    return new NewestFirst(this.from, id, time, this.read);
  }

  /** The record of the row `where` finds; `forUpdate` (the dialect's) when the transaction goes on to change it. */
  async one(sql: Sql, where: string, values: readonly unknown[], forUpdate = ''): Promise<T | undefined> {
    const row = await sql.row<RecordRow>(`${this.from} WHERE ${where}${forUpdate}`, values);
    return row && this.read(row);
  }

  /** The record of `key`. */
  get(sql: Sql, key: unknown, forUpdate = ''): Promise<T | undefined> {
    return this.one(sql, this.keyIs, [key], forUpdate);
  }

  /** The records of the rows `rest` (`WHERE … ORDER BY …`) finds, in its order. */
  async all(sql: Sql, rest: string, values: readonly unknown[] = []): Promise<T[]> {
    return (await sql.rows<RecordRow>(`${this.from} ${rest}`, values)).map(this.read);
  }

  /** Writes a new row (`beside`: columns that are not the record's fields); how many rows it wrote. */
  insert(sql: Sql, record: T, beside: Row = {}, onConflict = ''): Promise<number> {
    return sql.run(`${this.insertText}${onConflict}`, [
      ...this.columns.values({ ...record, ...beside }),
      JSON.stringify(record),
    ]);
  }

  /** Writes the record over its row, found by its key. */
  async save(sql: Sql, record: T): Promise<void> {
    const [key, ...rest] = this.columns.values(record as Row);
    await sql.run(this.saveText, [...rest, JSON.stringify(record), key]);
  }

  /**
   * Reads the record of `key` with its row held and writes what `next` makes of it (nothing when
   * undefined), in one transaction: the record as it was, and as written.
   */
  change(db: Database, key: unknown, next: (record: T) => T | undefined): Promise<[T | undefined, T | undefined]> {
    return db.transaction(async (tx) => {
      const record = await this.get(tx, key, db.dialect.forUpdate);
      const changed = record && next(record);
      if (changed) await this.save(tx, changed);
      return [record, changed];
    });
  }
}

/** A compare-and-set change: applied, revision bumped, to a record still at `revision`. */
export const atRevision =
  <T extends { revision: number }>(revision: number, change: Partial<NoInfer<T>>) =>
  (record: T): T | undefined =>
    record.revision === revision ? { ...record, ...change, revision: revision + 1 } : undefined;
