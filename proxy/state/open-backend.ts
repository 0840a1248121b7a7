import type { Redis } from 'ioredis';
import type { StoreInfo } from '../../schemas/proxy-api.ts';
import type { StoreSettings } from './store-settings.ts';
import type { Logger } from '../logger.ts';
import type { Coordination } from './coordination.ts';
import { localCoordination } from './local-coordination.ts';
import { openPostgres } from './postgres/open.ts';
import { connectRedis } from './redis/database.ts';
import { openRedis } from './redis/open.ts';
import { RedisStore } from './redis/store.ts';
import { openSqlite } from './sqlite/open.ts';
import type { Store } from './store.ts';

/** Where the proxy keeps its state, and how instances agree. */
export interface Backend {
  store: Store;
  coordination: Coordination;
  /** Which store, and what it keeps across a restart (for /readyz). */
  storeInfo: StoreInfo;
  /** The Redis connections of a fleet, whose commands /metrics counts. */
  redisConnections?: Redis[];
}

/**
 * Where state lives: with KASSA_DATABASE_URL, PostgreSQL holds the store and coordinates the fleet;
 * with KASSA_REDIS_URL, Redis does; with neither, SQLite and this process's memory. (The settings
 * refuse both at once.) A store or coordination `given` (tests, benchmarks) takes the place of
 * SQLite's and memory's, which are then not opened; a fleet's backend is opened all the same.
 */
export async function openBackend(
  config: StoreSettings,
  logger: Logger,
  given: Partial<Pick<Backend, 'store' | 'coordination' | 'storeInfo'>> = {},
): Promise<Backend> {
  if (config.database) return openPostgres({ ...config.database, logger });
  if (config.redisUrl) return openRedis(config.redisUrl, config.redisPrefix, logger);
  return {
    store: given.store ?? (await openSqlite(config.dbPath)),
    coordination: given.coordination ?? localCoordination(),
    storeInfo: given.storeInfo ?? { backend: 'sqlite' },
  };
}

/**
 * The configured store alone, without coordination, for a command run beside the proxy
 * (`kassa-proxy operators`, `kassa-proxy audit verify`): SQLite without the one-process lock, which
 * the running proxy holds; PostgreSQL or Redis by their URLs.
 */
export async function openStore(
  config: StoreSettings,
  logger: Logger,
): Promise<{ store: Store; close(): Promise<void> }> {
  if (config.database) {
    const backend = await openPostgres({ ...config.database, poolSize: 2, logger });
    return { store: backend.store, close: () => backend.coordination.close() };
  }
  if (config.redisUrl) {
    const connections = await connectRedis(config.redisUrl);
    return { store: new RedisStore(connections.command, config.redisPrefix), close: () => connections.close() };
  }
  const store = await openSqlite(config.dbPath, { lock: false });
  return { store, close: () => store.close() };
}
