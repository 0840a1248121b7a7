import { Redis } from 'ioredis';
import { StoreUnavailableError } from './store.ts';

export interface RedisConnections {
  /** Commands and scripts. */
  command: Redis;
  /** Pub/sub only: a subscribed connection can do nothing else. */
  subscriber: Redis;
  close(): Promise<void>;
}

/**
 * Connects to Redis, failing fast at start when it is unreachable. Commands are never queued while
 * Redis is away (enableOfflineQueue: false): a request fails at once with a clear 503 instead of
 * hanging, and ioredis keeps reconnecting in the background.
 */
export async function connectRedis(url: string): Promise<RedisConnections> {
  const options = {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    retryStrategy: (attempt: number) => Math.min(100 * attempt, 1_000),
  };
  const command = new Redis(url, options);
  // The subscriber may queue its SUBSCRIBE until connected: ioredis resubscribes after reconnects.
  const subscriber = new Redis(url, { ...options, enableOfflineQueue: true });
  // Errors are reported where commands fail; without a listener ioredis would print each one.
  command.on('error', () => undefined);
  subscriber.on('error', () => undefined);
  try {
    await Promise.all([command.connect(), subscriber.connect()]);
  } catch (error) {
    command.disconnect();
    subscriber.disconnect();
    throw new Error(`KASSA_REDIS_URL: cannot connect to Redis: ${(error as Error).message}`);
  }
  return {
    command,
    subscriber,
    async close() {
      await Promise.allSettled([command.quit(), subscriber.quit()]);
      command.disconnect();
      subscriber.disconnect();
    },
  };
}

/** Runs a Redis call; anything Redis throws means the store is unavailable (503), not a bug (500). */
export async function guarded<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof StoreUnavailableError) throw error;
    throw new StoreUnavailableError(error);
  }
}
