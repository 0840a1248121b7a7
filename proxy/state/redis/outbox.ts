import { newestFirst } from './newest-first.ts';
import { idOfMember, indexMember } from './keys.ts';
import { DELIVERED_KEPT_MS, RedisRecords, unchanged } from './records.ts';
import {
  ATTEMPTS_KEPT,
  decodeEventCursor,
  encodeEventCursor,
  freshEndpoint,
  type AttemptOutcome,
  type EndpointState,
  type EventAttemptRecord,
  type EventPage,
  type ExpiryRule,
  type GoneRule,
  type Outbox,
  type StoredEvent,
} from '../outbox.ts';
import type { Attempt, Checkout, Payment } from '../store.ts';

/** How long the mark of a settled expiry outlives the settling: far longer than any sweep takes. */
const EXPIRY_MARK_MS = 24 * 3600_000;

/**
 * Leases due events in one step: each due id is pushed past the lease before any instance can see it
 * again, so on a fleet each attempt is made by exactly one instance.
 */
const CLAIM_DUE = `
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
for _, id in ipairs(ids) do redis.call('ZADD', KEYS[1], ARGV[2], id) end
return ids
`;

/** Counts a 410 Gone and disables the endpoint, once, when the run is long enough; answers the hash. */
const COUNT_GONE = `
local gone = redis.call('HINCRBY', KEYS[1], 'gone', 1)
if gone >= tonumber(ARGV[1]) and redis.call('HEXISTS', KEYS[1], 'disabledAt') == 0 then
  redis.call('HSET', KEYS[1], 'disabledAt', ARGV[2], 'disabledReason', ARGV[3])
end
return redis.call('HGETALL', KEYS[1])
`;

/** An endpoint's hash (flat, as HGETALL answers it in Lua, or as ioredis's object) as its state. */
function toEndpointState(endpointId: string, hash: Record<string, string>): EndpointState {
  return {
    endpointId,
    goneInARow: Number(hash.gone ?? 0),
    disabledAt: hash.disabledAt === undefined ? null : Number(hash.disabledAt),
    disabledReason: hash.disabledReason ?? null,
  };
}

/** What an attempt makes of an event or of its delivery to a destination: its state, count and times. */
export const attempted = (record: { attempts: number }, attempt: EventAttemptRecord, outcome: AttemptOutcome) => ({
  status: outcome.status,
  attempts: record.attempts + 1,
  nextAttemptAt: outcome.status === 'pending' ? outcome.retryAt : null,
  deliveredAt: outcome.status === 'delivered' ? attempt.at : null,
});

/** The outbox for a fleet: events as JSON values, with sorted sets for what is due, the list and failures. */
export class RedisOutbox extends RedisRecords implements Outbox {
  routeToEnvironment(takes: boolean): void {
    this.routing.environment = takes;
  }

  async claimDue(now: number, limit: number, leaseMs: number): Promise<StoredEvent[]> {
    const ids = (await this.redis.eval(CLAIM_DUE, 1, this.key.eventsDue(), now, now + leaseMs, limit)) as string[];
    const events = await this.readAll<StoredEvent>(ids.map(this.key.event));
    return events.filter((event) => event.status === 'pending');
  }

  settle(eventId: string, attempt: EventAttemptRecord, outcome: AttemptOutcome): Promise<void> {
    const eventKey = this.key.event(eventId);
    return this.transact(async (cas) => {
      const event = await this.watch<StoredEvent>(cas, eventKey);
      if (!event) return unchanged(undefined);
      const next: StoredEvent = {
        ...event,
        ...attempted(event, attempt, outcome),
        lastError:
          outcome.status === 'delivered'
            ? event.lastError
            : (attempt.error ?? (attempt.statusCode === null ? null : `HTTP ${attempt.statusCode}`)),
      };
      const attemptsKey = this.key.eventAttempts(eventId);
      cas.rpushCapped(attemptsKey, JSON.stringify(attempt), ATTEMPTS_KEPT);
      if (outcome.status === 'delivered') {
        cas
          .setExpiring(eventKey, JSON.stringify(next), DELIVERED_KEPT_MS)
          .expire(attemptsKey, DELIVERED_KEPT_MS)
          .zrem(this.key.eventsDue(), eventId);
      } else if (outcome.status === 'pending') {
        cas.set(eventKey, JSON.stringify(next)).zaddScored(this.key.eventsDue(), eventId, outcome.retryAt);
      } else {
        cas
          .set(eventKey, JSON.stringify(next))
          .zrem(this.key.eventsDue(), eventId)
          .zaddScored(this.key.eventsFailed(), eventId, event.createdAt);
      }
    });
  }

  async listEvents(query: Parameters<Outbox['listEvents']>[0]): Promise<EventPage> {
    const after = query.cursor ? decodeEventCursor(query.cursor) : undefined;
    const found = await newestFirst<StoredEvent>(this.redis, {
      index: this.key.eventsAll(),
      valueKey: this.key.event,
      after: after && indexMember(after.createdAt, after.eventId),
      limit: query.limit,
      keep: (event) => (!query.status || event.status === query.status) && (!query.type || event.type === query.type),
    });
    const events = found.slice(0, query.limit);
    const last = events[events.length - 1];
    return { events, nextCursor: found.length > query.limit && last ? encodeEventCursor(last) : null };
  }

  async getEvent(eventId: string): Promise<{ event: StoredEvent; attempts: EventAttemptRecord[] } | undefined> {
    const [event, attempts] = await Promise.all([
      this.read<StoredEvent>(this.key.event(eventId)),
      this.readList<EventAttemptRecord>(this.key.eventAttempts(eventId)),
    ]);
    return event && { event, attempts };
  }

  redeliver(eventId: string, now: number): Promise<StoredEvent | undefined> {
    const eventKey = this.key.event(eventId);
    return this.transact<StoredEvent | undefined>(async (cas) => {
      const event = await this.watch<StoredEvent>(cas, eventKey);
      if (!event) return unchanged(undefined);
      const next: StoredEvent = { ...event, status: 'pending', nextAttemptAt: now };
      cas
        .set(eventKey, JSON.stringify(next))
        .zaddScored(this.key.eventsDue(), eventId, now)
        .zrem(this.key.eventsFailed(), eventId);
      return next;
    });
  }

  async redeliverFailed(since: number, now: number): Promise<number> {
    const ids = await this.redis.zrangebyscore(this.key.eventsFailed(), since, '+inf');
    let count = 0;
    for (const id of ids) if (await this.redeliver(id, now)) count++;
    return count;
  }

  async expireCheckouts(now: number, limit: number, rule: ExpiryRule): Promise<number> {
    const ids = await this.redis.zrangebyscore(this.key.expiring(), '-inf', now, 'LIMIT', 0, limit);
    let settled = 0;
    for (const checkoutId of ids) if (await this.expireOne(checkoutId, rule)) settled++;
    return settled;
  }

  private expireOne(checkoutId: string, rule: ExpiryRule): Promise<boolean> {
    return this.transact(async (cas) => {
      // Settled by another sweep (of this instance or another) since this one listed it.
      if ((await this.redis.zscore(this.key.expiring(), checkoutId)) === null) return unchanged(false);
      const checkout = await this.watch<Checkout>(cas, this.key.checkout(checkoutId));
      if (!checkout) {
        await this.redis.zrem(this.key.expiring(), checkoutId);
        return unchanged(false);
      }
      const attempt = checkout.currentAttempt
        ? await this.watch<Attempt>(cas, this.key.attempt(checkout.currentAttempt))
        : undefined;
      const stored = attempt?.transactionId
        ? await this.watch<Omit<Payment, 'lastCheckedAt'>>(cas, this.key.payment(attempt.transactionId))
        : undefined;
      const payment = stored && { ...stored, revision: stored.revision ?? 1, lastCheckedAt: null };
      const decision = rule(checkout, attempt, payment);
      if (!decision.settled) return unchanged(false);
      // Settling changes no value the commit expects, so the mark is what makes a racing sweep's commit fail.
      const mark = this.key.expirySettled(checkoutId);
      cas.expect(mark, null).setExpiring(mark, '1', EXPIRY_MARK_MS).zrem(this.key.expiring(), checkoutId);
      await this.addEvents(cas, decision.events);
      return true;
    });
  }

  async depth(): Promise<{ pending: number; oldestCreatedAt: number | null }> {
    const [pending, [first]] = await Promise.all([
      this.redis.zcard(this.key.eventsDue()),
      this.redis.zrange(this.key.eventsDue(), 0, 0),
    ]);
    // The set is ordered by when events are due; the one due first is as old as any that matters.
    const oldest = first ? await this.read<StoredEvent>(this.key.event(first)) : undefined;
    return { pending, oldestCreatedAt: oldest?.createdAt ?? null };
  }

  async endpointState(endpointId: string): Promise<EndpointState> {
    const hash = await this.redis.hgetall(this.key.eventEndpoint(endpointId));
    return Object.keys(hash).length ? toEndpointState(endpointId, hash) : freshEndpoint(endpointId);
  }

  async countGone(endpointId: string, rule: GoneRule): Promise<EndpointState> {
    const endpoint = this.key.eventEndpoint(endpointId);
    const flat = (await this.redis.eval(COUNT_GONE, 1, endpoint, rule.after, rule.at, rule.reason)) as string[];
    const hash: Record<string, string> = {};
    for (let i = 0; i < flat.length; i += 2) hash[flat[i]!] = flat[i + 1]!;
    return toEndpointState(endpointId, hash);
  }

  async clearGone(endpointId: string): Promise<void> {
    await this.redis.hset(this.key.eventEndpoint(endpointId), 'gone', 0);
  }

  async enableEndpoint(endpointId: string): Promise<EndpointState> {
    await this.redis.del(this.key.eventEndpoint(endpointId));
    return freshEndpoint(endpointId);
  }

  /** Redis forgets delivered events by itself (DELIVERED_KEPT_MS); this tidies the list's index. */
  async purgeDelivered(before: number): Promise<number> {
    const members = await this.redis.zrangebylex(this.key.eventsAll(), '-', `(${indexMember(before, '')}`);
    if (members.length === 0) return 0;
    const values = await this.redis.mget(...members.map((member) => this.key.event(idOfMember(member))));
    const gone = members.filter((_, index) => values[index] === null);
    if (gone.length) await this.redis.zrem(this.key.eventsAll(), ...gone);
    return gone.length;
  }
}
