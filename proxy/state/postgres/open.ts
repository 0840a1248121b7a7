import type { Coordination } from '../coordination.ts';
import { migrate } from '../sql/migrations.ts';
import { SqlStore } from '../sql/store.ts';
import { postgresCoordination } from './coordination.ts';
import { connectionConfig, PostgresDatabase, type DatabaseOptions } from './database.ts';
import { Listener } from './notifications.ts';

export interface PostgresBackend {
  store: SqlStore;
  coordination: Coordination;
  storeInfo: { backend: 'postgres' };
}

/** A migration may build an index over every payment: far longer than a request's statement may take. */
const MIGRATION_TIMEOUT_MS = 30 * 60_000;

/**
 * Connects to PostgreSQL, migrates the schema (the connection's `search_path`, `public` by default;
 * on a connection of its own, without the requests' timeouts) and starts listening, failing at start
 * (naming KASSA_DATABASE_URL) when the database cannot be reached, so that an orchestrator restarts
 * the instance until it is there. Afterwards a lost connection is re-established by itself.
 */
export async function openPostgres(options: DatabaseOptions): Promise<PostgresBackend> {
  const db = new PostgresDatabase(options);
  const listener = new Listener(connectionConfig(options), options.logger);
  try {
    const migrating = new PostgresDatabase({ ...options, poolSize: 1, statementTimeoutMs: MIGRATION_TIMEOUT_MS });
    await migrate(migrating).finally(() => migrating.close());
    // Notifications are per database: channels name the schema, so shops sharing a database stay apart.
    const { schema } = (await db.row<{ schema: string }>('SELECT current_schema() AS schema'))!;
    const coordination = postgresCoordination(db, listener, `kassa:${schema}:`);
    await listener.start();
    const close = async () => {
      await listener.close();
      await db.close();
    };
    options.logger.info('state on PostgreSQL', { poolSize: options.poolSize });
    return { store: new SqlStore(db), coordination: { ...coordination, close }, storeInfo: { backend: 'postgres' } };
  } catch (error) {
    await listener.close();
    await db.close();
    throw new Error(`KASSA_DATABASE_URL: cannot use the database: ${(error as Error).message}`, { cause: error });
  }
}
