import type { Redis } from 'ioredis';
import type { StoreInfo } from '../../schemas/proxy-api.ts';
import type { ProxyConfig } from '../config.ts';
import type { Logger } from '../logger.ts';
import type { Coordination } from './coordination.ts';
import { localCoordination } from './local-coordination.ts';
import { openPostgres } from './postgres/open.ts';
import { openRedis } from './redis/open.ts';
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
  config: ProxyConfig,
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
