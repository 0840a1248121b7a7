import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger } from '../../proxy/logger.ts';
import { openPostgres } from '../../proxy/state/postgres/open.ts';
import { connectRedis } from '../../proxy/state/redis/database.ts';
import { RedisStore } from '../../proxy/state/redis/store.ts';
import { openSqlite } from '../../proxy/state/sqlite/open.ts';
import type { Store } from '../../proxy/state/store.ts';
import { sharedPostgres } from './postgres-server.ts';
import { startRedis } from './redis-server.ts';

export interface OpenedStore {
  store: Store;
  close: () => Promise<void>;
}

/** Every store backend, each opened fresh on a server of its own: the contract suites run on all of them. */
export const STORE_BACKENDS: ReadonlyArray<{ name: string; open(): Promise<OpenedStore> }> = [
  {
    name: 'SQLite',
    async open() {
      const dir = mkdtempSync(join(tmpdir(), 'kassa-store-'));
      const store = await openSqlite(join(dir, 'contract.db'));
      return {
        store,
        async close() {
          await store.close();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    },
  },
  {
    name: 'Redis',
    async open() {
      const redis = await startRedis();
      const connections = await connectRedis(redis.url);
      return {
        store: new RedisStore(connections.command, `contract-${randomUUID()}:`),
        async close() {
          await connections.close();
          await redis.stop();
        },
      };
    },
  },
  {
    name: 'PostgreSQL',
    async open() {
      // One server for the test process, a database for each store opened on it.
      const server = await sharedPostgres();
      const { store, coordination } = await openPostgres({
        url: await server.createDatabase(),
        poolSize: 10,
        logger: createLogger({ level: 'error', sink: () => undefined, secrets: [] }),
      });
      return { store, close: () => coordination.close() };
    },
  },
];

/** The store `KASSA_TEST_STORE` names (`redis`, `postgres`; SQLite otherwise), for suites run once per store. */
export const storeUnderTest = (): Promise<OpenedStore> =>
  STORE_BACKENDS.find(
    (backend) =>
      backend.name === ({ redis: 'Redis', postgres: 'PostgreSQL' }[process.env.KASSA_TEST_STORE ?? ''] ?? 'SQLite'),
  )!.open();
