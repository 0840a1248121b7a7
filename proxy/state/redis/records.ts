import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import type { EventRouting, NewEvent, StoredEvent } from '../outbox.ts';
import { StoreUnavailableError } from '../store.ts';
import { Cas } from './cas.ts';
import { fanOutTo } from './destination-fan-out.ts';
import { indexMember, parse, type RedisKeys } from './keys.ts';

/** How long Redis keeps a delivered event and its attempts (the SQL outbox purges at the same age). */
export const DELIVERED_KEPT_MS = 30 * 24 * 3600_000;

/** The answer of a transaction that writes nothing (`transact`). */
export class Unchanged<T> {
  constructor(readonly value: T) {}
}
export const unchanged = <T>(value: T): Unchanged<T> => new Unchanged(value);

/**
 * What each part of the Redis store stands on: the connection, the keys under the prefix, records
 * read as JSON values, and optimistic transactions (cas.ts).
 */
export abstract class RedisRecords {
  constructor(
    protected readonly redis: Redis,
    protected readonly key: RedisKeys,
    /** Who takes the events a step writes: one for the store, shared by its parts that write events. */
    readonly routing: EventRouting = { environment: true },
  ) {}

  /** The record at `key`; undefined where there is none. */
  protected async read<T>(key: string): Promise<T | undefined> {
    return parse<T>(await this.redis.get(key));
  }

  /** The record at `key`, which the commit of `cas` expects unchanged (as Redis's WATCH would). */
  protected async watch<T>(cas: Cas, key: string): Promise<T | undefined> {
    const raw = await this.redis.get(key);
    cas.expect(key, raw);
    return parse<T>(raw);
  }

  /** The records at `keys` that exist, in their order. */
  protected async readAll<T>(keys: string[]): Promise<T[]> {
    if (keys.length === 0) return [];
    return (await this.redis.mget(keys)).flatMap((raw) => parse<T>(raw) ?? []);
  }

  /** The records of a list, in its order. */
  protected async readList<T>(key: string): Promise<T[]> {
    return (await this.redis.lrange(key, 0, -1)).map((raw) => JSON.parse(raw) as T);
  }

  /**
   * Adds new events to a transaction: the outbox rows of the change that transaction commits, and a
   * delivery of each to every destination that takes it (destination-fan-out.ts). Without
   * KASSA_EVENTS_URL an event no destination takes is not written, and one they take owes the outbox
   * nothing (outbox.ts's `EventRouting`).
   */
  protected async addEvents(cas: Cas, events: readonly NewEvent[]): Promise<void> {
    if (events.length === 0) return;
    const fanOut = await fanOutTo(this.redis, this.key, cas, events);
    for (const event of events) {
      if (!fanOut(event) && !this.routing.environment) continue;
      const stored: StoredEvent = {
        ...event,
        status: this.routing.environment ? 'pending' : 'delivered',
        attempts: 0,
        nextAttemptAt: this.routing.environment ? event.createdAt : null,
        deliveredAt: null,
        lastError: null,
      };
      const eventKey = this.key.event(event.eventId);
      cas.expect(eventKey, null).zadd(this.key.eventsAll(), indexMember(event.createdAt, event.eventId));
      if (this.routing.environment)
        cas.set(eventKey, JSON.stringify(stored)).zaddScored(this.key.eventsDue(), event.eventId, event.createdAt);
      else cas.setExpiring(eventKey, JSON.stringify(stored), DELIVERED_KEPT_MS);
    }
  }

  /**
   * Runs an optimistic transaction until it commits: `attempt` reads, decides, adds what its commit
   * checks and writes to `cas`, and returns its answer (or `unchanged(answer)` to write nothing). A
   * commit that lost a race reads again. Contention on one payment or checkout is brief, so a few
   * rounds do; past them the store is unavailable for now (503, retried).
   */
  protected async transact<T>(attempt: (cas: Cas) => Promise<T | Unchanged<T>>, rounds = 50): Promise<T> {
    for (let round = 0; round < rounds; round++) {
      const cas = new Cas(round);
      try {
        const answer = await attempt(cas);
        if (answer instanceof Unchanged) return answer.value;
        if (await cas.commit(this.redis)) return answer;
      } finally {
        cas.end();
      }
      await sleep(Math.random() * Math.min(50, 2 ** round));
    }
    throw new StoreUnavailableError(new Error('too much contention on one record'));
  }
}
