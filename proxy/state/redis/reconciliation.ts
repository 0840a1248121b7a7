import { parse } from './keys.ts';
import { RedisRecords } from './records.ts';
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
export class RedisReconciliation extends RedisRecords implements Reconciliation {
  async queueReread(transactionId: string, at: number): Promise<void> {
    await this.redis.zadd(this.key.rereads(), 'GT', at, transactionId);
  }

  async dequeueReread(transactionId: string, readAt?: number): Promise<void> {
    if (readAt === undefined) await this.redis.zrem(this.key.rereads(), transactionId);
    else await this.redis.eval(DEQUEUE_IF_OLDER, 1, this.key.rereads(), transactionId, readAt);
  }

  queuedRereads(limit: number): Promise<string[]> {
    return this.redis.zrange(this.key.rereads(), 0, limit - 1);
  }

  async markUnverifiable(entry: Unverifiable): Promise<void> {
    const current = await this.unverifiableOf(entry.transactionId);
    const since = current?.since ?? entry.since;
    await this.redis.hset(this.key.unverifiable(), entry.transactionId, JSON.stringify({ ...entry, since }));
  }

  async clearUnverifiable(transactionId: string): Promise<void> {
    await this.redis.hdel(this.key.unverifiable(), transactionId);
  }

  async unverifiable(limit: number): Promise<Unverifiable[]> {
    const hash = await this.redis.hgetall(this.key.unverifiable());
    const all = Object.values(hash).map((raw) => JSON.parse(raw) as Unverifiable);
    return all.sort((a, b) => a.since - b.since).slice(0, limit);
  }

  async unverifiableOf(transactionId: string): Promise<Unverifiable | undefined> {
    return parse(await this.redis.hget(this.key.unverifiable(), transactionId));
  }

  lastWebhook(transactionId: string): Promise<{ receivedAt: number; body: string } | undefined> {
    return this.read(this.key.lastWebhook(transactionId));
  }

  async recordResolution(resolution: Resolution): Promise<void> {
    await this.redis.rpush(this.key.resolutions(resolution.transactionId), JSON.stringify(resolution));
  }

  resolutions(transactionId: string): Promise<Resolution[]> {
    return this.readList(this.key.resolutions(transactionId));
  }
}
