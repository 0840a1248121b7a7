import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import type { Logger } from '../../logger.ts';
import type { Database as SqlDatabase, Dialect, Row, Sql } from '../sql/database.ts';
import { StoreUnavailableError } from '../store.ts';
import { RETRYABLE_CODES, sqlState, storeError } from './faults.ts';
import { POSTGRES_RELEASED } from './schema.ts';

/** How long closing waits for the database to acknowledge. */
export const CLOSE_WAIT_MS = 2_000;

export const POSTGRES: Dialect = {
  forUpdate: ' FOR UPDATE',
  skipLocked: ' FOR UPDATE SKIP LOCKED',
  forKeyShare: ' FOR KEY SHARE',
  rowId: (column) => column,
  released: POSTGRES_RELEASED,
  // Held until the transaction ends; `kassa:` keys, one space for every schema of the database.
  lock: async (tx, key) =>
    void (await tx.run('SELECT pg_advisory_xact_lock(hashtextextended(?, 0))', [`kassa:${key}`])),
  isUniqueViolation: (error) => sqlState(error) === '23505',
  async schemaVersion(tx) {
    // Several instances starting together migrate once: the first takes this lock, the others wait for it.
    await tx.run(`SELECT pg_advisory_xact_lock(hashtextextended('kassa:migrate:' || current_schema(), 0))`);
    await tx.run(
      'CREATE TABLE IF NOT EXISTS kassa_schema_versions (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())',
    );
    return (await tx.row<{ version: number }>(
      'SELECT coalesce(max(version), 0) AS version FROM kassa_schema_versions',
    ))!.version;
  },
  setSchemaVersion: async (tx, version) =>
    void (await tx.run('INSERT INTO kassa_schema_versions (version) VALUES (?)', [version])),
};

/** `?` placeholders numbered as PostgreSQL's (`$1`, `$2`, …); each text once. */
const numbered = new Map<string, string>();
function numberedText(text: string): string {
  let found = numbered.get(text);
  if (found === undefined) {
    let n = 0;
    numbered.set(text, (found = text.replace(/\?/g, () => `$${++n}`)));
  }
  return found;
}

export interface DatabaseOptions {
  /** `postgres://…`, with TLS as node-postgres reads it from the URL (`sslmode=verify-full`, `sslrootcert=…`). */
  url: string;
  /** Connections at most (the listener's is one more). */
  poolSize: number;
  /** How long a request waits for a connection, new or pooled, before the store counts as unavailable. */
  connectTimeoutMs?: number;
  /** Longest a statement may run on the server (a lock wait included). */
  statementTimeoutMs?: number;
  logger: Logger;
}

/** BIGINT columns hold epoch milliseconds and counts, well inside a double's exact range. */
const INT8 = 20;
const types = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary'): unknown =>
    oid === INT8 ? Number : (pg.types.getTypeParser(oid, format) as unknown)) as typeof pg.types.getTypeParser,
};

/** The settings of every connection to the database, pooled or the listener's. */
export function connectionConfig(options: DatabaseOptions): pg.ClientConfig {
  const statementTimeout = options.statementTimeoutMs ?? 5_000;
  return {
    connectionString: options.url,
    application_name: 'kassa',
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5_000,
    statement_timeout: statementTimeout,
    // The driver's own limit catches a server that stopped answering without closing the connection.
    query_timeout: statementTimeout + 2_000,
    // A transaction left open by a process that died mid-way must not hold its locks for long.
    idle_in_transaction_session_timeout: 10_000,
    // Idle pooled connections to a database that vanished without a word are probed, and dropped.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    types,
  };
}

/** A statement's rows and how many it changed, from one `query`: on a connection, or the pool's next one. */
abstract class Statements implements Sql {
  abstract query(text: string, values: readonly unknown[]): Promise<pg.QueryResult>;

  async rows<R = Row>(text: string, values: readonly unknown[] = []): Promise<R[]> {
    return (await this.query(text, values)).rows as R[];
  }

  async row<R = Row>(text: string, values: readonly unknown[] = []): Promise<R | undefined> {
    return (await this.rows<R>(text, values))[0];
  }

  async run(text: string, values: readonly unknown[] = []): Promise<number> {
    return (await this.query(text, values)).rowCount ?? 0;
  }

  async exec(script: string): Promise<void> {
    await this.query(script, []);
  }
}

/** Statements on one connection; the driver's failures become the store's. */
class ClientSql extends Statements {
  constructor(private readonly client: pg.PoolClient) {
    super();
  }

  async query(text: string, values: readonly unknown[]): Promise<pg.QueryResult> {
    try {
      // Unnamed statements: a named one would fail once a newer instance's migration changes what it
      // reads ("cached plan must not change result type") during a rolling deploy. A script (no
      // values) may hold several statements.
      return await this.client.query(
        values.length ? numberedText(text) : text,
        values.length ? (values as unknown[]) : undefined,
      );
    } catch (error) {
      throw storeError(error);
    }
  }
}

/**
 * The pool of connections to PostgreSQL: bounded in size; a connection that breaks is dropped and
 * the next request opens a new one, so instances recover with no restart when the database is back.
 * Every statement has a server-side and a client-side timeout, so no request waits on it for long.
 */
export class PostgresDatabase extends Statements implements SqlDatabase {
  readonly dialect = POSTGRES;
  readonly pool: pg.Pool;
  private closed: Promise<void> | undefined;

  constructor(readonly options: DatabaseOptions) {
    super();
    this.pool = new pg.Pool({ ...connectionConfig(options), max: options.poolSize, idleTimeoutMillis: 30_000 });
    // A pooled connection the server closes (a restart, an administrator) reports here; left unheard,
    // the error would end the process.
    this.pool.on('error', (error) => options.logger.warn('database connection lost', { error }));
    this.pool.on('connect', (client) => client.on('error', () => undefined));
  }

  query(text: string, values: readonly unknown[]): Promise<pg.QueryResult> {
    return this.withClient((sql) => sql.query(text, values));
  }

  /**
   * Runs `work` in one transaction (READ COMMITTED; `work` takes the row and advisory locks it needs).
   * A serialization failure or a deadlock runs it again from the start; an error of `work` rolls back.
   */
  async transaction<T>(work: (tx: Sql) => Promise<T>): Promise<T> {
    for (let round = 1; ; round++) {
      try {
        return await this.withClient(async (sql) => {
          await sql.exec('BEGIN');
          try {
            const value = await work(sql);
            await sql.exec('COMMIT');
            return value;
          } catch (error) {
            if (!(error instanceof StoreUnavailableError)) await sql.exec('ROLLBACK');
            throw error;
          }
        });
      } catch (error) {
        const code = sqlState(error);
        if (code === undefined || !RETRYABLE_CODES.has(code)) throw error;
        if (round >= 20) throw new StoreUnavailableError(error);
        await sleep(Math.random() * Math.min(50, 2 ** round));
      }
    }
  }

  /**
   * Closes every connection; later calls wait for the first. A database that no longer answers is not
   * waited for beyond a moment: shutting down must not hang on it.
   */
  close(): Promise<void> {
    this.closed ??= Promise.race([
      this.pool.end().catch(() => undefined),
      sleep(CLOSE_WAIT_MS, undefined, { ref: false }),
    ]);
    return this.closed;
  }

  private async withClient<T>(work: (sql: ClientSql) => Promise<T>): Promise<T> {
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (error) {
      throw new StoreUnavailableError(error);
    }
    try {
      const value = await work(new ClientSql(client));
      client.release();
      return value;
    } catch (error) {
      // A connection that failed is dropped, not handed to the next request.
      client.release(error instanceof StoreUnavailableError ? error : undefined);
      throw error;
    }
  }
}
