import type { Redis } from 'ioredis';
import { takes, type DeliveryRecord, type DestinationRecord } from '../destinations.ts';
import type { NewEvent } from '../outbox.ts';
import type { Cas } from './cas.ts';
import { indexMember, parse, type RedisKeys } from './keys.ts';

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
 * Adds to a transaction one delivery of the event per destination that takes its type, disabled ones
 * included (they keep their events until enabled or skipped); says whether any takes it. The commit
 * is to expect the destinations as read (`addEvents`): one added or changed meanwhile makes the
 * transaction read again, so none is missed.
 */
export function fanOut(cas: Cas, key: RedisKeys, destinations: Destinations, event: NewEvent): boolean {
  const taking = destinations.configs.filter(({ enabledEvents }) => takes(enabledEvents, event.type));
  for (const { destinationId } of taking) {
    const member = indexMember(event.createdAt, event.eventId);
    const delivery: StoredDelivery = {
      eventId: event.eventId,
      type: event.type,
      status: 'pending',
      createdAt: event.createdAt,
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
}
