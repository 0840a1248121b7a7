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
  /** Another store on the same state, as another instance of a fleet (or a command beside the proxy) opens it. */
  fleetmate(): Promise<Omit<OpenedStore, 'fleetmate'>>;
}

/** Every store backend, each opened fresh on a server of its own: the contract suites run on all of them. */
export const STORE_BACKENDS: ReadonlyArray<{ name: string; open(): Promise<OpenedStore> }> = [
  {
    name: 'SQLite',
    async open() {
      const dir = mkdtempSync(join(tmpdir(), 'kassa-store-'));
      const path = join(dir, 'contract.db');
      const store = await openSqlite(path);
      return {
        store,
        async fleetmate() {
          // Without the one-process lock, which the first holds: as `kassa-proxy operators` opens it.
          const other = await openSqlite(path, { lock: false });
          return { store: other, close: () => other.close() };
        },
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
      const prefix = `contract-${randomUUID()}:`;
      return {
        store: new RedisStore(connections.command, prefix),
        fleetmate: async () => ({ store: new RedisStore(connections.command, prefix), close: async () => undefined }),
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
      const url = await server.createDatabase();
      const logger = createLogger({ level: 'error', sink: () => undefined, secrets: [] });
      const { store, coordination } = await openPostgres({ url, poolSize: 10, logger });
      return {
        store,
        async fleetmate() {
          const other = await openPostgres({ url, poolSize: 2, logger });
          return { store: other.store, close: () => other.coordination.close() };
        },
        close: () => coordination.close(),
      };
    },
  },
];
