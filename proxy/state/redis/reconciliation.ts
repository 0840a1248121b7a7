import type { Redis } from 'ioredis';
import { guarded } from './faults.ts';
import type { RedisKeys } from './keys.ts';
import type { Reconciliation, Resolution, Unverifiable } from '../reconciliation.ts';

/** How long the last webhook of a payment is kept, as the SQL store keeps its webhook rows. */
export const LAST_WEBHOOK_KEPT_SECONDS = 30 * 24 * 3600;

/** Removes a queued re-read unless it was queued again after the read that settles it began. */
const DEQUEUE_IF_OLDER = `local at = redis.call('ZSCORE', KEYS[1], ARGV[1])
if at and tonumber(at) < tonumber(ARGV[2]) then return redis.call('ZREM', KEYS[1], ARGV[1]) end
return 0`;

/**
 * Reconciliation records on Redis: the re-read queue as a sorted set by when it was queued, the
 * unverifiable payments as a hash, resolutions as a list per payment.
 */
export class RedisReconciliation implements Reconciliation {
  constructor(
    private readonly redis: Redis,
    private readonly key: RedisKeys,
  ) {}

  queueReread(transactionId: string, at: number): Promise<void> {
    return guarded(async () => {
      await this.redis.zadd(this.key.rereads(), 'GT', at, transactionId);
    });
  }

  dequeueReread(transactionId: string, readAt?: number): Promise<void> {
    return guarded(async () => {
      if (readAt === undefined) await this.redis.zrem(this.key.rereads(), transactionId);
      else await this.redis.eval(DEQUEUE_IF_OLDER, 1, this.key.rereads(), transactionId, readAt);
    });
  }

  queuedRereads(limit: number): Promise<string[]> {
    return guarded(() => this.redis.zrange(this.key.rereads(), 0, limit - 1));
  }

  markUnverifiable(entry: Unverifiable): Promise<void> {
    return guarded(async () => {
      const current = await this.unverifiableOf(entry.transactionId);
      await this.redis.hset(
        this.key.unverifiable(),
        entry.transactionId,
        JSON.stringify({ ...entry, since: current?.since ?? entry.since }),
      );
    });
  }

  clearUnverifiable(transactionId: string): Promise<void> {
    return guarded(async () => {
      await this.redis.hdel(this.key.unverifiable(), transactionId);
    });
  }

  unverifiable(limit: number): Promise<Unverifiable[]> {
    return guarded(async () => {
      const all = Object.values(await this.redis.hgetall(this.key.unverifiable())).map(
        (raw) => JSON.parse(raw) as Unverifiable,
      );
      return all.sort((a, b) => a.since - b.since).slice(0, limit);
    });
  }

  unverifiableOf(transactionId: string): Promise<Unverifiable | undefined> {
    return guarded(async () => {
      const raw = await this.redis.hget(this.key.unverifiable(), transactionId);
      return raw === null ? undefined : (JSON.parse(raw) as Unverifiable);
    });
  }

  lastWebhook(transactionId: string): Promise<{ receivedAt: number; body: string } | undefined> {
    return guarded(async () => {
      const raw = await this.redis.get(this.key.lastWebhook(transactionId));
      return raw === null ? undefined : (JSON.parse(raw) as { receivedAt: number; body: string });
    });
  }

  recordResolution(resolution: Resolution): Promise<void> {
    return guarded(async () => {
      await this.redis.rpush(this.key.resolutions(resolution.transactionId), JSON.stringify(resolution));
    });
  }

  resolutions(transactionId: string): Promise<Resolution[]> {
    return guarded(async () =>
      (await this.redis.lrange(this.key.resolutions(transactionId), 0, -1)).map((raw) => JSON.parse(raw) as Resolution),
    );
  }
}
