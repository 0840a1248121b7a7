import { Redis } from 'ioredis';
import { StoreOpenError } from '../store-open-error.ts';
import { failAsUnavailable } from './faults.ts';

export interface RedisConnections {
  /** Commands and scripts. */
  command: Redis;
  /** Pub/sub only: a subscribed connection can do nothing else. */
  subscriber: Redis;
  close(): Promise<void>;
}

/** A Redis command unanswered this long fails (503): a paused or black-holed Redis must not hold requests. */
export const REDIS_COMMAND_TIMEOUT_MS = 1_000;

/**
 * Connects to Redis, failing fast at start when it is unreachable. Commands are never queued while
 * Redis is away (enableOfflineQueue: false), and a command Redis does not answer within a second
 * fails (a paused Redis keeps its connections open and answers nothing): a request fails with a
 * clear 503 instead of hanging, and ioredis keeps reconnecting in the background.
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
  answerWithin(command, REDIS_COMMAND_TIMEOUT_MS);
  failAsUnavailable(command);
  // The subscriber may queue its SUBSCRIBE until connected: ioredis resubscribes after reconnects. It
  // serves no request, so it waits for its answers.
  const subscriber = new Redis(url, { ...options, enableOfflineQueue: true });
  // Errors are reported where commands fail; without a listener ioredis would print each one.
  command.on('error', () => undefined);
  subscriber.on('error', () => undefined);
  try {
    await Promise.all([command.connect(), subscriber.connect()]);
  } catch (error) {
    command.disconnect();
    subscriber.disconnect();
    throw new StoreOpenError(
      'KASSA_REDIS_URL',
      redactedUrl(url),
      `cannot connect to Redis: ${(error as Error).message}`,
    );
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

/**
 * ioredis's commandTimeout, except that an answer that came in while the event loop was busy wins:
 * the timer is looked at only after pending I/O has been read (setImmediate), so a CPU-bound moment
 * does not turn answers already there into 503s.
 */
function answerWithin(redis: Redis, ms: number): void {
  const send = redis.sendCommand.bind(redis);
  redis.sendCommand = (...args: Parameters<Redis['sendCommand']>) => {
    const [command] = args;
    let settled = false;
    const timer = setTimeout(
      () =>
        setImmediate(() => {
          if (!settled) command.reject(new Error(`Command timed out: Redis did not answer within ${ms} ms`));
        }),
      ms,
    );
    const done = () => {
      settled = true;
      clearTimeout(timer);
    };
    command.promise.then(done, done);
    return send(...args);
  };
}

/** The URL without its password, for messages. */
function redactedUrl(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.href;
}
