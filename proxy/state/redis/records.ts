import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { StoreUnavailableError } from '../store.ts';
import { Cas } from './cas.ts';
import { parse, type RedisKeys } from './keys.ts';

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
  ) {}

  /** The record at `key`; undefined where there is none. */
  protected async read<T>(key: string): Promise<T | undefined> {
    return parse<T>(await this.redis.get(key));
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
   * Runs an optimistic transaction until it commits: `attempt` reads, decides, adds what its commit
   * checks and writes to `cas`, and returns its answer (or `unchanged(answer)` to write nothing). A
   * commit that lost a race reads again. Contention on one payment or checkout is brief, so a few
   * rounds do; past them the store is unavailable for now (503, retried).
   */
  protected async transact<T>(attempt: (cas: Cas) => Promise<T | Unchanged<T>>, rounds = 50): Promise<T> {
    for (let round = 0; round < rounds; round++) {
      const cas = new Cas();
      const answer = await attempt(cas);
      if (answer instanceof Unchanged) return answer.value;
      if (await cas.commit(this.redis)) return answer;
      await sleep(Math.random() * Math.min(50, 2 ** round));
    }
    throw new StoreUnavailableError(new Error('too much contention on one record'));
  }
}
