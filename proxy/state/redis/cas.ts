import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';

/**
 * Optimistic transactions on a shared connection: read in TypeScript, decide with the same rules as
 * every store (store.ts), then commit with one Lua script that applies the writes only if each value
 * read is still there, unchanged. A false commit means someone else wrote first: read again.
 * (WATCH/MULTI would need a connection per transaction; rules written again in Lua would drift.)
 */
const COMPARE_AND_SET = `
local spec = cjson.decode(ARGV[1])
for _, check in ipairs(spec.checks) do
  local current = redis.call('GET', KEYS[check[1]])
  if current ~= check[2] then return 0 end
end
for _, op in ipairs(spec.ops) do
  local key = KEYS[op[2]]
  if op[1] == 'set' then redis.call('SET', key, op[3])
  elseif op[1] == 'del' then redis.call('DEL', key)
  elseif op[1] == 'zadd' then redis.call('ZADD', key, 0, op[3])
  elseif op[1] == 'zrem' then redis.call('ZREM', key, op[3])
  elseif op[1] == 'zscore' then redis.call('ZADD', key, op[4], op[3])
  elseif op[1] == 'setpx' then redis.call('SET', key, op[3], 'PX', op[4])
  elseif op[1] == 'pexpire' then redis.call('PEXPIRE', key, op[3])
  elseif op[1] == 'rpushcap' then
    redis.call('RPUSH', key, op[3])
    redis.call('LTRIM', key, -op[4], -1)
  end
end
return 1
`;

const defined = new WeakSet<Redis>();

/** The script as a command of the connection: ioredis sends it once and then runs it by its hash. */
function compareAndSet(redis: Redis): (...args: Array<string | number>) => Promise<unknown> {
  if (!defined.has(redis)) {
    redis.defineCommand('kassaCompareAndSet', { lua: COMPARE_AND_SET });
    defined.add(redis);
  }
  return (
    redis as unknown as { kassaCompareAndSet: (...args: Array<string | number>) => Promise<unknown> }
  ).kassaCompareAndSet.bind(redis);
}

type Op =
  | ['set', number, string]
  | ['setpx', number, string, number]
  | ['pexpire', number, number]
  | ['del', number]
  | ['zadd', number, string]
  | ['zscore', number, string, number]
  | ['zrem', number, string]
  | ['rpushcap', number, string, number];

export class Cas {
  readonly keys: string[] = [];
  /** `false` expects the key to be absent (what Lua sees for a missing value). */
  private readonly checks: Array<[number, string | false]> = [];
  private readonly ops: Op[] = [];

  /** The commit succeeds only if `key` still holds `value` (null: still absent). */
  expect(key: string, value: string | null): this {
    this.checks.push([this.slot(key), value ?? false]);
    return this;
  }

  set(key: string, value: string): this {
    this.ops.push(['set', this.slot(key), value]);
    return this;
  }

  del(key: string): this {
    this.ops.push(['del', this.slot(key)]);
    return this;
  }

  /** Sorted sets here are lexicographic indexes: every member has score 0. */
  zadd(key: string, member: string): this {
    this.ops.push(['zadd', this.slot(key), member]);
    return this;
  }

  /** A sorted set ordered by score (when an event is due), not lexicographically. */
  zaddScored(key: string, member: string, score: number): this {
    this.ops.push(['zscore', this.slot(key), member, score]);
    return this;
  }

  /** Sets a value that Redis forgets after `ms`. */
  setExpiring(key: string, value: string, ms: number): this {
    this.ops.push(['setpx', this.slot(key), value, ms]);
    return this;
  }

  expire(key: string, ms: number): this {
    this.ops.push(['pexpire', this.slot(key), ms]);
    return this;
  }

  /** Appends to a list that keeps only its last `cap` entries. */
  rpushCapped(key: string, value: string, cap: number): this {
    this.ops.push(['rpushcap', this.slot(key), value, cap]);
    return this;
  }

  zrem(key: string, member: string): this {
    this.ops.push(['zrem', this.slot(key), member]);
    return this;
  }

  async commit(redis: Redis): Promise<boolean> {
    const result = await compareAndSet(redis)(
      this.keys.length,
      ...this.keys,
      JSON.stringify({ checks: this.checks, ops: this.ops }),
    );
    return result === 1;
  }

  private slot(key: string): number {
    const index = this.keys.indexOf(key);
    if (index !== -1) return index + 1;
    this.keys.push(key);
    return this.keys.length;
  }
}

/**
 * Runs an optimistic transaction until it commits: `attempt` returns `undefined` when its commit lost
 * a race and must read again. Contention on one payment or checkout is brief, so a few rounds do.
 */
export async function optimistically<T>(attempt: () => Promise<{ value: T } | undefined>, rounds = 50): Promise<T> {
  for (let round = 0; round < rounds; round++) {
    const done = await attempt();
    if (done) return done.value;
    await sleep(Math.random() * Math.min(50, 2 ** round));
  }
  throw new Error('too much contention on one record');
}
