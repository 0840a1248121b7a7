import type { ProxyConfig } from '../config.ts';
import { redisCoordination } from './redis/coordination.ts';
import type { Logger } from '../logger.ts';
import { openPostgres } from './postgres/open.ts';
import { connectRedis, redisPersistence } from './redis/connection.ts';
import { RedisStore } from './redis/store.ts';
import type { ServiceOverrides } from '../services.ts';

/**
 * Where state lives: with KASSA_DATABASE_URL, PostgreSQL holds the store and coordinates the fleet;
 * with KASSA_REDIS_URL, Redis does; with neither the services fall back to SQLite and this process's
 * memory. (The settings refuse both at once.)
 */
export async function backendFor(
  config: ProxyConfig,
  logger: Logger,
): Promise<Pick<ServiceOverrides, 'store' | 'coordination' | 'redisConnections' | 'storeInfo'>> {
  if (config.database) {
    const backend = await openPostgres({ ...config.database, logger });
    logger.info('state on PostgreSQL', { poolSize: config.database.poolSize });
    return { ...backend, storeInfo: { backend: 'postgres' } };
  }
  if (!config.redisUrl) return {};
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
