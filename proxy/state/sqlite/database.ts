import Database from 'better-sqlite3';
import type { Database as SqlDatabase, Dialect, Row, Sql } from '../sql/database.ts';
import { storeError } from './faults.ts';
import { SQLITE_RELEASED } from './schema.ts';

const SQLITE: Dialect = {
  forUpdate: '',
  skipLocked: '',
  forKeyShare: '',
  rowId: () => 'rowid',
  released: SQLITE_RELEASED,
  lock: async () => undefined,
  isUniqueViolation: (error) => error instanceof Database.SqliteError && error.code === 'SQLITE_CONSTRAINT_UNIQUE',
  schemaVersion: async (tx) =>
    (await tx.row<{ version: number }>('SELECT user_version AS version FROM pragma_user_version'))!.version,
  setSchemaVersion: (tx, version) => tx.exec(`PRAGMA user_version = ${version}`),
};

/** Runs a statement now: a disk fault fails it as StoreUnavailableError, anything else as it is. */
async function now<T>(statement: () => T): Promise<T> {
  try {
    return statement();
  } catch (error) {
    throw storeError(error);
  }
}

/**
 * The SQL store's database on one better-sqlite3 connection. better-sqlite3 is synchronous and the
 * connection is one, so transactions, which await between their statements, take turns: while one is
 * open or waiting, every other statement and transaction waits behind it, in the order they came, and
 * a statement with nothing ahead of it runs at once (the status read's path). Each statement is
 * prepared once and kept: preparing costs more than running.
 */
export class SqliteDatabase implements SqlDatabase {
  readonly dialect = SQLITE;
  private readonly statements = new Map<string, Database.Statement>();
  /** Transactions and statements open or waiting, and the last of them, which the next waits for. */
  private waiting = 0;
  private last: Promise<unknown> = Promise.resolve();
  /** The statements of the open transaction, which run at once. */
  private readonly tx: Sql = {
    row: (text, values = []) => now(() => this.statement(text).get(...values) as never),
    rows: (text, values = []) => now(() => this.statement(text).all(...values) as never),
    run: (text, values = []) => now(() => this.statement(text).run(...values).changes),
    exec: (script) => now(() => void this.db.exec(script)),
  };

  constructor(
    private readonly db: Database.Database,
    /** The file's single-process lock (lock.ts), let go of on close. */
    private readonly lock?: Database.Database,
  ) {}

  row<R = Row>(text: string, values?: readonly unknown[]): Promise<R | undefined> {
    return this.inTurn(() => this.tx.row<R>(text, values));
  }

  rows<R = Row>(text: string, values?: readonly unknown[]): Promise<R[]> {
    return this.inTurn(() => this.tx.rows<R>(text, values));
  }

  run(text: string, values?: readonly unknown[]): Promise<number> {
    return this.inTurn(() => this.tx.run(text, values));
  }

  exec(script: string): Promise<void> {
    return this.inTurn(() => this.tx.exec(script));
  }

  transaction<T>(work: (tx: Sql) => Promise<T>): Promise<T> {
    return this.inTurn(async () => {
      await this.tx.exec('BEGIN IMMEDIATE');
      try {
        const value = await work(this.tx);
        await this.tx.exec('COMMIT');
        return value;
      } catch (error) {
        // A full disk or an I/O error may have rolled it back already.
        if (this.db.inTransaction) await this.tx.exec('ROLLBACK').catch(() => undefined);
        throw error;
      }
    });
  }

  async close(): Promise<void> {
    await this.last;
    if (this.db.open) this.db.close();
    if (this.lock?.open) this.lock.close();
  }

  /** Runs `job` at once when nothing is open or waiting, otherwise after the last of those. */
  private inTurn<T>(job: () => Promise<T>): Promise<T> {
    if (this.waiting > 0) return this.queue(this.last.then(job));
    const result = job();
    // A transaction it began is open past this call: what comes next waits for it.
    return this.db.inTransaction ? this.queue(result) : result;
  }

  private queue<T>(result: Promise<T>): Promise<T> {
    this.waiting++;
    const settled = result.finally(() => this.waiting--);
    this.last = settled.catch(() => undefined);
    return settled;
  }

  private statement(text: string): Database.Statement {
    let statement = this.statements.get(text);
    if (!statement) this.statements.set(text, (statement = this.db.prepare(text)));
    return statement;
  }
}
