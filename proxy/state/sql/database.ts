/**
 * The one SQL store's view of a database: statements with `?` placeholders (its SQL holds no other
 * `?`), transactions, and the dialect for what truly differs between SQLite (sqlite/database.ts) and
 * PostgreSQL (postgres/database.ts). Everything else (the store's SQL, its migrations) is written once.
 */
export type Row = Record<string, unknown>;

/** Statements, on the database or inside one transaction. */
export interface Sql {
  row<R = Row>(text: string, values?: readonly unknown[]): Promise<R | undefined>;
  rows<R = Row>(text: string, values?: readonly unknown[]): Promise<R[]>;
  /** Runs a statement; how many rows it changed. */
  run(text: string, values?: readonly unknown[]): Promise<number>;
  /** Runs statements that take no values, one after another (a migration). */
  exec(script: string): Promise<void>;
}

export interface Database extends Sql {
  readonly dialect: Dialect;
  /**
   * Runs `work` in one transaction that no other interleaves with (`work` takes the row and advisory
   * locks it needs through the dialect); an error of `work` rolls it back.
   */
  transaction<T>(work: (tx: Sql) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

export interface Dialect {
  /**
   * Ends a SELECT whose rows the transaction goes on to change: row locks on PostgreSQL, nothing on
   * SQLite, whose transactions hold the whole file.
   */
  readonly forUpdate: string;
  /** The same, passing over rows another transaction holds: each instance takes rows of its own. */
  readonly skipLocked: string;
  /**
   * Ends a SELECT of rows that must not be deleted before the transaction ends (new rows elsewhere
   * refer to them): a lock only a delete (or a change of key) waits for on PostgreSQL; nothing on SQLite.
   */
  readonly forKeyShare: string;
  /** The order rows were written in: SQLite's own rowid, an identity column (`column`) on PostgreSQL. */
  rowId(column: string): string;
  /** Serialises the transactions on one key until they end (an advisory lock); SQLite's are serial already. */
  lock(tx: Sql, key: string): Promise<void>;
  isUniqueViolation(error: unknown): boolean;
  /** The schema's versions as released before the one SQL store (sql/migrations.ts goes on from them). */
  readonly released: readonly string[];
  /** The schema's version, once this transaction holds the right to migrate (instances starting together). */
  schemaVersion(tx: Sql): Promise<number>;
  setSchemaVersion(tx: Sql, version: number): Promise<void>;
}

/** A JSON column as its value: PostgreSQL's JSONB comes parsed, SQLite's text does not. */
export const fromJson = <T>(value: unknown): T => (typeof value === 'string' ? JSON.parse(value) : value) as T;
