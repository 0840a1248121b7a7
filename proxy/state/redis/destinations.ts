import { randomBytes } from 'node:crypto';
import type { DeliveryStatus } from '../../../schemas/event-destinations.ts';
import type {
  DeliveryPage,
  DeliveryRecord,
  DestinationPatch,
  DestinationRecord,
  DestinationStore,
  QueuedDelivery,
} from '../destinations.ts';
import { decodeEventCursor, encodeEventCursor, type AttemptOutcome, type EventAttemptRecord } from '../outbox.ts';
import { Cas } from './cas.ts';
import { readDestinations, type DestinationConfig, type StoredDelivery } from './destination-fan-out.ts';
import { replies } from './faults.ts';
import { idOfMember, indexMember, parse } from './keys.ts';
import { newestFirst } from './newest-first.ts';
import { attempted } from './outbox.ts';
import { DELIVERED_KEPT_MS, RedisRecords, unchanged } from './records.ts';

/** Deliveries skipped in one transaction. */
const SKIP_CHUNK = 500;

/**
 * Leases a destination to one instance: not while it is disabled or its queue is empty (removed,
 * skipped), nor while another instance holds it.
 */
const LEASE = `
if redis.call('HEXISTS', KEYS[1], 'disabledAt') == 1 or redis.call('EXISTS', KEYS[2]) == 0 then return 0 end
if redis.call('SET', KEYS[3], ARGV[1], 'NX', 'PX', ARGV[2]) then return 1 end
return 0
`;

/** A delivery as the log shows it: without the event's body. */
const logged = ({ payload: _, ...delivery }: StoredDelivery): DeliveryRecord => delivery;

/**
 * The event destinations on Redis (the contract: ../destinations.ts). What each destination is (its
 * address, secrets, event types) is one JSON value for all of them, which every event's fan-out
 * expects unchanged (destination-fan-out.ts); whether it is disabled is its endpoint hash, where the
 * outbox counts its 410 Gone answers too. Each destination has its queue (pending deliveries, in
 * order), its log, a value per delivery, and a lease that one instance at a time holds.
 */
export class RedisDestinations extends RedisRecords implements DestinationStore {
  /** This instance's name in the leases it takes, so that it ends only its own. */
  private readonly token = randomBytes(12).toString('base64url');

  create(record: DestinationRecord): Promise<void> {
    const { disabledAt, disabledReason, ...config } = record;
    return this.changeConfigs((configs, cas) => {
      if (disabledAt !== null)
        cas.hset(this.key.eventEndpoint(record.destinationId), ...disabled(disabledAt, disabledReason));
      return [...configs, config];
    }).then(() => undefined);
  }

  async list(): Promise<DestinationRecord[]> {
    return this.withState((await readDestinations(this.redis, this.key)).configs);
  }

  async get(destinationId: string): Promise<DestinationRecord | undefined> {
    return (await this.list()).find((record) => record.destinationId === destinationId);
  }

  async update(destinationId: string, patch: DestinationPatch): Promise<DestinationRecord | undefined> {
    const { disabledAt, disabledReason, ...fields } = patch;
    const given = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
    const found = await this.changeConfigs((configs, cas) => {
      if (!configs.some((config) => config.destinationId === destinationId)) return undefined;
      const endpoint = this.key.eventEndpoint(destinationId);
      // Enabling starts the run of 410 Gone answers over, as the outbox's enabling does.
      if (disabledAt === null) cas.del(endpoint);
      else if (disabledAt !== undefined) cas.hset(endpoint, ...disabled(disabledAt, disabledReason ?? null));
      return configs.map((config) => (config.destinationId === destinationId ? { ...config, ...given } : config));
    });
    return found ? this.get(destinationId) : undefined;
  }

  async remove(destinationId: string): Promise<boolean> {
    const removed = await this.changeConfigs((configs, cas) => {
      if (!configs.some((config) => config.destinationId === destinationId)) return undefined;
      cas.del(this.key.eventEndpoint(destinationId)).del(this.key.destinationLease(destinationId));
      return configs.filter((config) => config.destinationId !== destinationId);
    });
    if (!removed) return false;
    // No fan-out adds to it any more (each expects the destinations as they were): its deliveries go.
    const log = this.key.destinationLog(destinationId);
    for (;;) {
      const members = await this.redis.zrange(log, 0, SKIP_CHUNK - 1);
      if (members.length === 0) break;
      await this.redis.del(...this.deliveryKeys(destinationId, members));
      await this.redis.zrem(log, ...members);
    }
    await this.redis.del(this.key.destinationQueue(destinationId));
    return true;
  }

  async pendingCounts(): Promise<Map<string, number>> {
    const { configs } = await readDestinations(this.redis, this.key);
    const pipeline = this.redis.pipeline();
    for (const config of configs) pipeline.zcard(this.key.destinationQueue(config.destinationId));
    const counts = await replies(pipeline);
    return new Map(configs.map((config, index) => [config.destinationId, Number(counts[index])]));
  }

  async claimHead(destinationId: string, now: number, limit: number, leaseMs: number): Promise<QueuedDelivery[]> {
    // Read first: a destination whose head is not due (failing, waiting for its retry) costs no write.
    const queue = this.key.destinationQueue(destinationId);
    const members = await this.redis.zrange(queue, 0, limit - 1);
    const deliveries = await this.readAll<StoredDelivery>(this.deliveryKeys(destinationId, members));
    const due = deliveries.findIndex((delivery) => delivery.status !== 'pending' || delivery.nextAttemptAt! > now);
    const head = due === -1 ? deliveries : deliveries.slice(0, due);
    if (head.length === 0) return [];
    const keys = [this.key.eventEndpoint(destinationId), queue, this.key.destinationLease(destinationId)];
    if ((await this.redis.eval(LEASE, keys.length, ...keys, this.token, leaseMs)) !== 1) return [];
    return head.map(({ eventId, type, payload, createdAt, attempts }) => ({
      eventId,
      type,
      payload: payload!,
      createdAt,
      attempts,
    }));
  }

  async releaseLease(destinationId: string): Promise<void> {
    const lease = this.key.destinationLease(destinationId);
    await new Cas().expect(lease, this.token).del(lease).commit(this.redis);
  }

  settle(destinationId: string, eventId: string, attempt: EventAttemptRecord, outcome: AttemptOutcome): Promise<void> {
    const deliveryKey = this.key.destinationDelivery(destinationId, eventId);
    return this.transact(async (cas) => {
      const delivery = await this.watch<StoredDelivery>(cas, deliveryKey);
      // Skipped or removed meanwhile: the attempt changes nothing.
      if (delivery?.status !== 'pending') return unchanged(undefined);
      const next: StoredDelivery = {
        ...delivery,
        ...attempted(delivery, attempt, outcome),
        lastAttemptAt: attempt.at,
        lastStatusCode: attempt.statusCode,
        lastDurationMs: attempt.durationMs,
        lastError: attempt.error,
      };
      if (outcome.status === 'pending') cas.set(deliveryKey, JSON.stringify(next));
      else {
        const member = indexMember(delivery.createdAt, eventId);
        cas.zrem(this.key.destinationQueue(destinationId), member);
        // Delivered ones are forgotten as the outbox forgets its delivered events; failed ones stay.
        if (outcome.status === 'delivered')
          cas.setExpiring(deliveryKey, JSON.stringify(logged(next)), DELIVERED_KEPT_MS);
        else cas.set(deliveryKey, JSON.stringify(logged(next)));
      }
    });
  }

  /** Skips what is in the queue now, a chunk per transaction (deliveries fanned out meanwhile stay). */
  async skipPending(destinationId: string): Promise<number> {
    const queue = this.key.destinationQueue(destinationId);
    const [last] = await this.redis.zrange(queue, -1, -1);
    if (last === undefined) return 0;
    let skipped = 0;
    for (;;) {
      const count = await this.transact(async (cas) => {
        const members = await this.redis.zrangebylex(queue, '-', `[${last}`, 'LIMIT', 0, SKIP_CHUNK);
        if (members.length === 0) return unchanged(0);
        const keys = this.deliveryKeys(destinationId, members);
        const raws = await this.redis.mget(...keys);
        let count = 0;
        members.forEach((member, index) => {
          const delivery = parse<StoredDelivery>(raws[index]);
          cas.expect(keys[index]!, raws[index] ?? null).zrem(queue, member);
          if (delivery?.status !== 'pending') return;
          const next = logged({ ...delivery, status: 'skipped', nextAttemptAt: null });
          cas.setExpiring(keys[index]!, JSON.stringify(next), DELIVERED_KEPT_MS);
          count++;
        });
        return count;
      });
      if (count === 0 && (await this.redis.zlexcount(queue, '-', `[${last}`)) === 0) return skipped;
      skipped += count;
    }
  }

  async deliveries(
    destinationId: string,
    query: { status?: DeliveryStatus | undefined; limit: number; cursor?: string | undefined },
  ): Promise<DeliveryPage> {
    const after = query.cursor ? decodeEventCursor(query.cursor) : undefined;
    const found = await newestFirst<StoredDelivery>(this.redis, {
      index: this.key.destinationLog(destinationId),
      valueKey: (eventId) => this.key.destinationDelivery(destinationId, eventId),
      after: after && indexMember(after.createdAt, after.eventId),
      limit: query.limit,
      keep: (delivery) => !query.status || delivery.status === query.status,
    });
    const deliveries = found.slice(0, query.limit);
    const last = deliveries[deliveries.length - 1];
    const nextCursor = found.length > query.limit && last ? encodeEventCursor(last) : null;
    return { deliveries: deliveries.map(logged), nextCursor };
  }

  /**
   * Changes the destinations in one transaction, with whatever `change` adds to it; `change` returns
   * the new list, or undefined to leave it (false is then returned).
   */
  private changeConfigs(
    change: (configs: DestinationConfig[], cas: Cas) => DestinationConfig[] | undefined,
  ): Promise<boolean> {
    return this.transact(async (cas) => {
      const { raw, configs } = await readDestinations(this.redis, this.key);
      const next = change(configs, cas.expect(this.key.eventDestinations(), raw));
      if (!next) return unchanged(false);
      cas.set(this.key.eventDestinations(), JSON.stringify(next));
      return true;
    });
  }

  /** The destinations with whether each is disabled (its endpoint hash). */
  private async withState(configs: DestinationConfig[]): Promise<DestinationRecord[]> {
    const pipeline = this.redis.pipeline();
    for (const config of configs) pipeline.hgetall(this.key.eventEndpoint(config.destinationId));
    const states = await replies(pipeline);
    return configs.map((config, index) => {
      const state = states[index] as Record<string, string>;
      return {
        ...config,
        disabledAt: state.disabledAt === undefined ? null : Number(state.disabledAt),
        disabledReason: state.disabledReason || null,
      };
    });
  }

  /** The keys of a destination's deliveries, from their members of its queue or log. */
  private deliveryKeys(destinationId: string, members: string[]): string[] {
    return members.map((member) => this.key.destinationDelivery(destinationId, idOfMember(member)));
  }
}

/** The endpoint hash's fields of a disabled destination. */
const disabled = (at: number, reason: string | null): string[] => [
  'disabledAt',
  String(at),
  'disabledReason',
  reason ?? '',
];
