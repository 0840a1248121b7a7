import type { Redis } from 'ioredis';
import { queuedAt, takes, type DeliveryRecord, type DestinationRecord } from '../destinations.ts';
import type { NewEvent } from '../outbox.ts';
import type { Cas } from './cas.ts';
import { replies } from './faults.ts';
import { REDIS_COMMAND_TIMEOUT_MS } from './database.ts';
import { indexMember, parse, timeOfMember, type RedisKeys } from './keys.ts';
import { Turns } from './turns.ts';

/**
 * Lost races after which a fan-out waits for its turn: taken at once, turns would make every writer
 * wait for the others, where a few at once commit sooner by retrying.
 */
const RACES_BEFORE_TURNS = 6;

/** How long a fan-out waits for its turn: a burst of a thousand at once is written within 2.5 s on a local Redis. */
const FAN_OUT_TURN_WAIT_MS = 5 * REDIS_COMMAND_TIMEOUT_MS;

/** The fan-outs' turns, one set per connection (every part of a store, and every store on it, shares it). */
const turns = new WeakMap<Redis, Turns>();
function fanOutTurns(redis: Redis): Turns {
  let found = turns.get(redis);
  if (!found) turns.set(redis, (found = new Turns()));
  return found;
}

/** A destination as the `eventDestinations` value holds it: whether it is disabled lives in its endpoint hash. */
export type DestinationConfig = Omit<DestinationRecord, 'disabledAt' | 'disabledReason'>;

/** A delivery as Redis keeps it: with the event's signed body while it is pending (the event may be purged first). */
export type StoredDelivery = DeliveryRecord & { payload?: string };

/** The destinations, and the value read, which a transaction that fans out expects unchanged. */
export interface Destinations {
  raw: string | null;
  configs: DestinationConfig[];
}

export async function readDestinations(redis: Redis, key: RedisKeys): Promise<Destinations> {
  const raw = await redis.get(key.eventDestinations());
  return { raw, configs: parse<DestinationConfig[]>(raw) ?? [] };
}

/**
 * The fan-out of a transaction's events, for `addEvents`: reads the destinations, which the commit
 * expects unchanged (one added or changed meanwhile makes the transaction read again, so none is
 * missed), and the last member of each taking one's log, which it expects unchanged too: deliveries
 * join a queue one commit at a time, each after the last (`queuedAt`), so the queue is in the order
 * they were committed. Returns what adds one event's deliveries to the transaction, disabled
 * destinations included (they keep their events until enabled or skipped), and says whether any takes it.
 */
export async function fanOutTo(
  redis: Redis,
  key: RedisKeys,
  cas: Cas,
  events: readonly NewEvent[],
): Promise<(event: NewEvent) => boolean> {
  const destinations = await readDestinations(redis, key);
  cas.expect(key.eventDestinations(), destinations.raw);
  const ids = destinations.configs
    .filter(({ enabledEvents }) => events.some((event) => takes(enabledEvents, event.type)))
    .map(({ destinationId }) => destinationId);
  // Every writer to a destination expects its log's tail unchanged. A few at once retry and commit
  // soon; one that keeps losing takes turns with the others that do, from here to its commit, or a
  // burst of them would retry against each other until some gave up.
  if (ids.length > 0 && cas.lost >= RACES_BEFORE_TURNS) await cas.hold(fanOutTurns(redis), FAN_OUT_TURN_WAIT_MS);
  const pipeline = redis.pipeline();
  for (const id of ids) pipeline.zrange(key.destinationLog(id), -1, -1);
  const lasts = ids.length > 0 ? await replies(pipeline) : [];
  /** The time of each destination's last delivery, this transaction's included. */
  const tails = new Map(
    ids.map((id, index) => {
      const [last] = lasts[index] as string[];
      cas.expectLast(key.destinationLog(id), last ?? null);
      return [id, last === undefined ? null : timeOfMember(last)];
    }),
  );
  return (event) => {
    const taking = destinations.configs.filter(({ enabledEvents }) => takes(enabledEvents, event.type));
    for (const { destinationId } of taking) {
      const createdAt = queuedAt(event.createdAt, tails.get(destinationId));
      tails.set(destinationId, createdAt);
      const member = indexMember(createdAt, event.eventId);
      const delivery: StoredDelivery = {
        eventId: event.eventId,
        type: event.type,
        status: 'pending',
        createdAt,
        attempts: 0,
        nextAttemptAt: event.createdAt,
        deliveredAt: null,
        lastAttemptAt: null,
        lastStatusCode: null,
        lastDurationMs: null,
        lastError: null,
        payload: event.payload,
      };
      cas
        .set(key.destinationDelivery(destinationId, event.eventId), JSON.stringify(delivery))
        .zadd(key.destinationQueue(destinationId), member)
        .zadd(key.destinationLog(destinationId), member);
    }
    return taking.length > 0;
  };
}
