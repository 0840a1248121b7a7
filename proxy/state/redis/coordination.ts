import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import type { Logger } from '../../logger.ts';
import type { CachedToken, Coordination, RateBudget, GateClaim, ReadGate, TokenStore } from '../coordination.ts';
import { FleetChangeSignal, FleetStatusBus, underLease } from '../fleet-coordination.ts';
import { BUDGET_WINDOW_MS } from '../local-coordination.ts';
import type { RedisConnections } from './database.ts';
import { parse } from './keys.ts';
import { pubSubChannel, sayWhenBack } from './notifications.ts';

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

  async tryTake(reserve = 0): Promise<{ ok: true } | { ok: false; retryInMs: number }> {
    const args = [BUDGET_WINDOW_MS, this.limit, reserve, randomUUID()];
    const answer = await this.redis.eval(TAKE, 2, this.key, `${this.key}:paused`, ...args);
    const [ok, retryInMs] = answer as [number, number];
    return ok === 1 ? { ok: true } : { ok: false, retryInMs };
  }

  async pause(ms: number): Promise<void> {
    await this.redis.eval(PAUSE, 1, `${this.key}:paused`, Math.max(1, Math.round(ms)));
  }

  async used(): Promise<number> {
    return Number(await this.redis.eval(USED, 1, this.key, BUDGET_WINDOW_MS));
  }
}

/**
 * One access token for the fleet, and one exchange at a time across it: a lock with an expiry. Whoever
 * gets the lock next looks at the shared token first (TokenManager does), so a fleet of waiters makes
 * one exchange, not one each.
 */
class RedisTokenStore implements TokenStore {
  private inFlight: Promise<unknown> | undefined;

  constructor(
    private readonly redis: Redis,
    private readonly key: string,
  ) {}

  async get(): Promise<CachedToken | undefined> {
    return parse(await this.redis.get(this.key));
  }

  async set(token: CachedToken): Promise<void> {
    await this.redis.set(this.key, JSON.stringify(token), 'PX', Math.max(1, token.refreshAt - Date.now()));
  }

  async clear(accessToken: string): Promise<void> {
    const raw = await this.redis.get(this.key);
    if (parse<CachedToken>(raw)?.accessToken === accessToken) await this.redis.eval(DELETE_IF, 1, this.key, raw!);
  }

  exclusive<T>(exchange: () => Promise<T>): Promise<T> {
    const lock = `${this.key}:lock`;
    const owner = randomUUID();
    // Within this instance, callers share one turn; across the fleet, turns take the lock.
    this.inFlight ??= underLease(
      {
        take: async (ms) => (await this.redis.set(lock, owner, 'PX', ms, 'NX')) === 'OK',
        release: () => this.redis.eval(DELETE_IF, 1, lock, owner),
      },
      exchange,
    ).finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight as Promise<T>;
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

  async tryClaim(
    transactionId: string,
    intervalMs: number,
    claim: GateClaim = 'routine',
  ): Promise<{ ok: true } | { ok: false; retryInMs: number }> {
    const interval = Math.max(1, Math.round(intervalMs));
    const left = Number(await this.redis.eval(CLAIM, 1, `${this.prefix}${transactionId}`, interval, claim));
    return left < 0 ? { ok: true } : { ok: false, retryInMs: Math.max(1, left) };
  }

  async release(transactionId: string): Promise<void> {
    await this.redis.del(`${this.prefix}${transactionId}`);
  }
}

/** The fleet's shared budgets, token, read gate and status bus, all in Redis under `prefix`. */
export function redisCoordination(connections: RedisConnections, prefix: string, logger: Logger): Coordination {
  const { command } = connections;
  sayWhenBack(connections, logger);
  return {
    tokenBudget: new RedisBudget(command, `${prefix}budget:token`, 10),
    paymentBudget: new RedisBudget(command, `${prefix}budget:payments`, 100),
    tokens: new RedisTokenStore(command, `${prefix}access-token`),
    readGate: new RedisReadGate(command, `${prefix}read-gate:`),
    bus: new FleetStatusBus(pubSubChannel(connections, `${prefix}status`, logger)),
    purchaseChanges: new FleetChangeSignal(pubSubChannel(connections, `${prefix}purchase-changes`, logger)),
    linkChanges: new FleetChangeSignal(pubSubChannel(connections, `${prefix}link-changes`, logger)),
    close: () => connections.close(),
  };
}
