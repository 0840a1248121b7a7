import { setTimeout as sleep } from 'node:timers/promises';
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { PaymentStatusView } from '../../../schemas/proxy-api.ts';
import type { Logger } from '../../logger.ts';
import { guarded, type RedisConnections } from './connection.ts';
import type {
  CachedToken,
  ChangeSignal,
  Coordination,
  RateBudget,
  GateClaim,
  ReadGate,
  StatusBus,
  StatusListener,
  TokenStore,
} from '../coordination.ts';
import { BUDGET_WINDOW_MS, LocalChangeSignal, LocalStatusBus } from '../local-coordination.ts';

/** Redis's own clock, so that every instance counts the same window whatever its own clock says. */
const NOW = `local t = redis.call('TIME') local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)`;

const TAKE = `${NOW}
local paused = tonumber(redis.call('GET', KEYS[2]) or '0')
if now < paused then return {0, paused - now} end
local window, limit, reserve = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now - window)
local used = redis.call('ZCARD', KEYS[1])
local allowed = limit - reserve
if used < allowed then
  redis.call('ZADD', KEYS[1], now, ARGV[4])
  redis.call('PEXPIRE', KEYS[1], window)
  return {1, 0}
end
if allowed <= 0 then return {0, window} end
local oldest = redis.call('ZRANGE', KEYS[1], used - allowed, used - allowed, 'WITHSCORES')
return {0, math.max(1, tonumber(oldest[2]) + window - now)}`;

const PAUSE = `${NOW}
local resume_at = now + tonumber(ARGV[1])
if resume_at > tonumber(redis.call('GET', KEYS[1]) or '0') then redis.call('SET', KEYS[1], resume_at, 'PX', ARGV[1]) end
return 1`;

const USED = `${NOW}
return redis.call('ZCOUNT', KEYS[1], now - tonumber(ARGV[1]), '+inf')`;

/** Deletes a key only if it still holds this value: a lock's owner, or the token being forgotten. */
const DELETE_IF = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0`;

/** A per-minute budget counted across the fleet: a sorted set of takes in Redis. */
class RedisBudget implements RateBudget {
  constructor(
    private readonly redis: Redis,
    private readonly key: string,
    readonly limit: number,
  ) {}

  tryTake(reserve = 0): Promise<{ ok: true } | { ok: false; retryInMs: number }> {
    return guarded(async () => {
      const [ok, retryInMs] = (await this.redis.eval(
        TAKE,
        2,
        this.key,
        `${this.key}:paused`,
        BUDGET_WINDOW_MS,
        this.limit,
        reserve,
        randomUUID(),
      )) as [number, number];
      return ok === 1 ? { ok: true } : { ok: false, retryInMs };
    });
  }

  pause(ms: number): Promise<void> {
    return guarded(async () => {
      await this.redis.eval(PAUSE, 1, `${this.key}:paused`, Math.max(1, Math.round(ms)));
    });
  }

  used(): Promise<number> {
    return guarded(async () => Number(await this.redis.eval(USED, 1, this.key, BUDGET_WINDOW_MS)));
  }
}

const LOCK_MS = 20_000;
const LOCK_WAIT_MS = 30_000;

/**
 * One access token for the fleet, and one exchange at a time across it: a lock with an expiry (an
 * instance that dies mid-exchange cannot hold it forever). Whoever gets the lock next looks at the
 * shared token first (TokenManager does), so a fleet of waiters makes one exchange, not one each.
 */
class RedisTokenStore implements TokenStore {
  private inFlight: Promise<unknown> | undefined;

  constructor(
    private readonly redis: Redis,
    private readonly key: string,
  ) {}

  get(): Promise<CachedToken | undefined> {
    return guarded(async () => {
      const raw = await this.redis.get(this.key);
      return raw === null ? undefined : (JSON.parse(raw) as CachedToken);
    });
  }

  set(token: CachedToken): Promise<void> {
    return guarded(async () => {
      await this.redis.set(this.key, JSON.stringify(token), 'PX', Math.max(1, token.refreshAt - Date.now()));
    });
  }

  clear(accessToken: string): Promise<void> {
    return guarded(async () => {
      const raw = await this.redis.get(this.key);
      if (raw !== null && (JSON.parse(raw) as CachedToken).accessToken === accessToken)
        await this.redis.eval(DELETE_IF, 1, this.key, raw);
    });
  }

  exclusive<T>(exchange: () => Promise<T>): Promise<T> {
    // Within this instance, callers share one turn; across the fleet, turns take the lock.
    this.inFlight ??= this.locked(exchange).finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight as Promise<T>;
  }

  private async locked<T>(exchange: () => Promise<T>): Promise<T> {
    const lock = `${this.key}:lock`;
    const owner = randomUUID();
    const deadline = Date.now() + LOCK_WAIT_MS;
    while ((await guarded(() => this.redis.set(lock, owner, 'PX', LOCK_MS, 'NX'))) !== 'OK') {
      if (Date.now() > deadline) throw new Error('timed out waiting for another instance to exchange a token');
      await sleep(25 + Math.random() * 25);
    }
    try {
      return await exchange();
    } finally {
      await guarded(() => this.redis.eval(DELETE_IF, 1, lock, owner)).catch(() => undefined);
    }
  }
}

/** Sets the gate's key if it is free (-1), or says how many ms it stays closed. */
/** The key holds 'owed' when a webhook's read holds the gate, 'routine' when another read does. */
const CLAIM = `local held = redis.call('GET', KEYS[1])
if not held or (ARGV[2] == 'webhook' and held ~= 'owed') then
  redis.call('SET', KEYS[1], ARGV[2] == 'routine' and 'routine' or 'owed', 'PX', ARGV[1])
  return -1
end
return math.max(1, redis.call('PTTL', KEYS[1]))`;

/** At most one re-read per payment per interval, fleet-wide: a key that expires after the interval. */
class RedisReadGate implements ReadGate {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  tryClaim(
    transactionId: string,
    intervalMs: number,
    claim: GateClaim = 'routine',
  ): Promise<{ ok: true } | { ok: false; retryInMs: number }> {
    return guarded(async () => {
      const left = Number(
        await this.redis.eval(CLAIM, 1, `${this.prefix}${transactionId}`, Math.max(1, Math.round(intervalMs)), claim),
      );
      return left < 0 ? { ok: true } : { ok: false, retryInMs: Math.max(1, left) };
    });
  }

  release(transactionId: string): Promise<void> {
    return guarded(async () => {
      await this.redis.del(`${this.prefix}${transactionId}`);
    });
  }
}

/**
 * Hands one pub/sub channel's messages to `message`, and calls `reconnected` when the subscriber is back
 * after a drop (pub/sub keeps nothing for a subscriber that was away).
 */
function listenOn(
  subscriber: Redis,
  channel: string,
  logger: Logger,
  handlers: { message(text: string): void; reconnected(): void },
): void {
  let connectedBefore = false;
  subscriber.on('message', (from: string, text: string) => {
    if (from === channel) handlers.message(text);
  });
  subscriber.on('ready', () => {
    if (connectedBefore) handlers.reconnected();
    connectedBefore = true;
  });
  void subscriber.subscribe(channel).catch((error: unknown) => logger.error('cannot subscribe', { error, channel }));
}

/**
 * Status changes through Redis pub/sub to whichever instance holds each subscriber: every instance
 * subscribes once and hands messages to its own listeners. Pub/sub keeps nothing for an instance that
 * was away, so after a reconnect listeners are told to look at the store again (`onResync`).
 */
class RedisStatusBus implements StatusBus {
  private readonly local = new LocalStatusBus();
  private readonly resync = new Set<() => void>();

  constructor(
    private readonly redis: Redis,
    subscriber: Redis,
    private readonly channel: string,
    logger: Logger,
  ) {
    listenOn(subscriber, channel, logger, {
      message: (text) => this.local.deliver(JSON.parse(text) as PaymentStatusView),
      reconnected: () => {
        logger.info('status bus reconnected; streams look at the store again');
        for (const listener of this.resync) listener();
      },
    });
  }

  publish(view: PaymentStatusView): Promise<void> {
    return guarded(async () => {
      await this.redis.publish(this.channel, JSON.stringify(view));
    });
  }

  subscribe(transactionId: string, listener: StatusListener): () => void {
    return this.local.subscribe(transactionId, listener);
  }

  subscribeAll(listener: StatusListener): () => void {
    return this.local.subscribeAll(listener);
  }

  onResync(listener: () => void): () => void {
    this.resync.add(listener);
    return () => this.resync.delete(listener);
  }
}

/** Record changes through Redis pub/sub, on a channel of their own; after a reconnect every listener looks again. */
class RedisChangeSignal implements ChangeSignal {
  private readonly local = new LocalChangeSignal();

  constructor(
    private readonly redis: Redis,
    subscriber: Redis,
    private readonly channel: string,
    logger: Logger,
  ) {
    listenOn(subscriber, channel, logger, {
      message: (text) => this.local.deliver(text),
      reconnected: () => this.local.deliverAll(),
    });
  }

  publish(id: string): Promise<void> {
    return guarded(async () => {
      await this.redis.publish(this.channel, id);
    });
  }

  subscribe(id: string, listener: () => void): () => void {
    return this.local.subscribe(id, listener);
  }
}

/** The fleet's shared budgets, token, read gate and status bus, all in Redis under `prefix`. */
export function redisCoordination(connections: RedisConnections, prefix: string, logger: Logger): Coordination {
  const { command, subscriber } = connections;
  return {
    tokenBudget: new RedisBudget(command, `${prefix}budget:token`, 10),
    paymentBudget: new RedisBudget(command, `${prefix}budget:payments`, 100),
    tokens: new RedisTokenStore(command, `${prefix}access-token`),
    readGate: new RedisReadGate(command, `${prefix}read-gate:`),
    bus: new RedisStatusBus(command, subscriber, `${prefix}status`, logger),
    purchaseChanges: new RedisChangeSignal(command, subscriber, `${prefix}purchase-changes`, logger),
    close: () => connections.close(),
  };
}
