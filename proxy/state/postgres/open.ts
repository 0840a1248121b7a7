import type { Coordination } from '../coordination.ts';
import { connectionConfig, Database, type DatabaseOptions } from './database.ts';
import { postgresCoordination } from './coordination.ts';
import { migrate } from './migrations.ts';
import { Listener } from './notifications.ts';
import { PostgresStore } from './store.ts';

export interface PostgresBackend {
  store: PostgresStore;
  coordination: Coordination;
}

/**
 * Connects to PostgreSQL, migrates the schema and starts listening, failing at start (naming
 * KASSA_DATABASE_URL) when the database cannot be reached, so that an orchestrator restarts the
 * instance until it is there. Afterwards a lost connection is re-established by itself.
 */
export async function openPostgres(options: DatabaseOptions): Promise<PostgresBackend> {
  const config = connectionConfig(options);
  const db = new Database(options);
  const listener = new Listener(config, options.logger);
  try {
    await migrate(config);
    // Notifications are per database: channels name the schema, so shops sharing a database stay apart.
    const { schema } = (await db.row<{ schema: string }>('SELECT current_schema() AS schema'))!;
    const coordination = postgresCoordination(db, listener, `kassa:${schema}:`);
    await listener.start();
    const close = async () => {
      await listener.close();
      await db.close();
    };
    return { store: new PostgresStore(db), coordination: { ...coordination, close } };
  } catch (error) {
    await listener.close();
    await db.close();
    throw new Error(`KASSA_DATABASE_URL: cannot use the database: ${(error as Error).message}`, { cause: error });
  }
}
