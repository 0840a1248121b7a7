import type { Redis } from 'ioredis';
import type { StoreInfo } from '../../../schemas/proxy-api.ts';
import type { Logger } from '../../logger.ts';
import type { Coordination } from '../coordination.ts';
import { redisCoordination } from './coordination.ts';
import { connectRedis } from './database.ts';
import { RedisStore } from './store.ts';

export interface RedisBackend {
  store: RedisStore;
  coordination: Coordination;
  storeInfo: StoreInfo;
  /** The connection that runs commands, whose commands /metrics counts. */
  redisConnections: Redis[];
}

/**
 * Connects to Redis (failing at start, naming KASSA_REDIS_URL, when it cannot) and asks how it keeps
 * its data: a Redis restart without AOF is a lost shop's worth of payments, which is said at every
 * start (docs/scaling.md).
 */
export async function openRedis(url: string, prefix: string, logger: Logger): Promise<RedisBackend> {
  const connections = await connectRedis(url);
  const persistence = await redisPersistence(connections.command);
  logger.info('state on Redis', { prefix, persistence: persistence.mode });
  if (persistence.warning)
    logger.warn(persistence.warning, { setting: 'KASSA_REDIS_URL', persistence: persistence.mode });
  return {
    store: new RedisStore(connections.command, prefix),
    coordination: redisCoordination(connections, prefix, logger),
    redisConnections: [connections.command],
    storeInfo: {
      backend: 'redis',
      persistence: persistence.mode,
      ...(persistence.warning ? { warning: persistence.warning } : {}),
    },
  };
}

/** How Redis keeps its data across a restart, as far as it says. */
interface RedisPersistence {
  /** aof: every write; rdb: snapshots only; none: nothing; unknown: Redis does not say. */
  mode: 'aof' | 'rdb' | 'none' | 'unknown';
  /** What a Redis restart would cost, for the start log and /readyz; null with AOF on. */
  warning: string | null;
}

const WARNINGS: Record<RedisPersistence['mode'], string | null> = {
  aof: null,
  rdb: 'Redis keeps snapshots only (appendonly no): a Redis restart loses the checkouts and payments since the last one',
  none: 'Redis keeps nothing on disk (appendonly no, no save): a Redis restart loses every checkout and payment',
  unknown:
    'Redis does not say how it keeps its data (CONFIG refused) and AOF is off: a Redis restart may lose checkouts and payments',
};

/**
 * Asks Redis how it persists: `CONFIG GET appendonly` and `save`, or, where CONFIG is refused (managed
 * services often rename it), whether INFO reports AOF on.
 */
async function redisPersistence(redis: Redis): Promise<RedisPersistence> {
  const result = (mode: RedisPersistence['mode']) => ({ mode, warning: WARNINGS[mode] });
  try {
    const [, appendonly] = (await redis.config('GET', 'appendonly')) as string[];
    const [, save] = (await redis.config('GET', 'save')) as string[];
    return result(appendonly === 'yes' ? 'aof' : save?.trim() ? 'rdb' : 'none');
  } catch {
    const info = await redis.info('persistence').catch(() => '');
    return result(/^aof_enabled:1\b/m.test(info) ? 'aof' : 'unknown');
  }
}
