import type { Redis } from 'ioredis';
import type { StoreInfo } from '../../schemas/proxy-api.ts';
import type { ProxyConfig } from '../config.ts';
import type { Logger } from '../logger.ts';
import type { Coordination } from './coordination.ts';
import { localCoordination } from './local-coordination.ts';
import { openPostgres } from './postgres/open.ts';
import { redisCoordination } from './redis/coordination.ts';
import { connectRedis, redisPersistence } from './redis/connection.ts';
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
  config: ProxyConfig,
  logger: Logger,
  given: Partial<Pick<Backend, 'store' | 'coordination' | 'storeInfo'>> = {},
): Promise<Backend> {
  if (config.database) {
    const backend = await openPostgres({ ...config.database, logger });
    logger.info('state on PostgreSQL', { poolSize: config.database.poolSize });
    return { ...backend, storeInfo: { backend: 'postgres' } };
  }
  if (!config.redisUrl) {
    return {
      store: given.store ?? (await openSqlite(config.dbPath)),
      coordination: given.coordination ?? localCoordination(),
      storeInfo: given.storeInfo ?? { backend: 'sqlite' },
    };
  }
  const connections = await connectRedis(config.redisUrl);
  const persistence = await redisPersistence(connections.command);
  logger.info('state on Redis', { prefix: config.redisPrefix, persistence: persistence.mode });
  // Said at every start: with it, a Redis restart is a lost shop's worth of payments (docs/scaling.md).
  if (persistence.warning)
    logger.warn(persistence.warning, { setting: 'KASSA_REDIS_URL', persistence: persistence.mode });
  return {
    store: new RedisStore(connections.command, config.redisPrefix),
    coordination: redisCoordination(connections, config.redisPrefix, logger),
    redisConnections: [connections.command],
    storeInfo: {
      backend: 'redis',
      persistence: persistence.mode,
      ...(persistence.warning ? { warning: persistence.warning } : {}),
    },
  };
}
