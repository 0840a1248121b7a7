import type { Redis } from 'ioredis';
import type { Turns } from './turns.ts';

/**
 * Optimistic transactions on a shared connection: read in TypeScript, decide with the same rules as
 * every store (store.ts), then commit with one Lua script that applies the writes only if each value
 * read is still there, unchanged. A false commit means someone else wrote first: read again.
 * (WATCH/MULTI would need a connection per transaction; rules written again in Lua would drift.)
 */
const COMPARE_AND_SET = `
local spec = cjson.decode(ARGV[1])
for _, check in ipairs(spec.checks) do
  local now
  if check[3] then now = redis.call('ZRANGE', KEYS[check[1]], -1, -1)[1] or false
  else now = redis.call('GET', KEYS[check[1]]) end
  if now ~= check[2] then return 0 end
end
for _, op in ipairs(spec.ops) do
  op[2] = KEYS[op[2]]
  redis.call(unpack(op))
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

export class Cas {
  readonly keys: string[] = [];

  /** `lost`: how many attempts before this one lost their race to commit (`transact`). */
  constructor(readonly lost = 0) {}

  /**
   * `false` expects the key to be absent (what Lua sees for a missing value); with `last`, the last
   * member of a sorted set (`false`: none).
   */
  private readonly checks: Array<[number, string | false] | [number, string | false, 'last']> = [];
  /** Commands, each with its key as an index into `keys`. */
  private readonly ops: Array<[string, number, ...Array<string | number>]> = [];
  /** The turns this attempt holds, each given back when it ends (`end`), committed or not. */
  private readonly held = new Map<Turns, () => void>();

  /** Waits for a turn of `turns` (once per attempt, within `withinMs`), held until the attempt ends. */
  async hold(turns: Turns, withinMs: number): Promise<void> {
    if (!this.held.has(turns)) this.held.set(turns, await turns.take(withinMs));
  }

  /** The attempt is over: its turns are given back. */
  end(): void {
    for (const giveBack of this.held.values()) giveBack();
    this.held.clear();
  }

  /** The commit succeeds only if `key` still holds `value` (null: still absent). */
  expect(key: string, value: string | null): this {
    this.checks.push([this.slot(key), value ?? false]);
    return this;
  }

  /** The commit succeeds only if the last member of the sorted set at `key` is still `member` (null: still empty). */
  expectLast(key: string, member: string | null): this {
    this.checks.push([this.slot(key), member ?? false, 'last']);
    return this;
  }

  set = (key: string, value: string) => this.op('SET', key, value);
  del = (key: string) => this.op('DEL', key);
  /** Sorted sets here are lexicographic indexes: every member has score 0. */
  zadd = (key: string, member: string) => this.op('ZADD', key, 0, member);
  /** A sorted set ordered by score (when an event is due), not lexicographically. */
  zaddScored = (key: string, member: string, score: number) => this.op('ZADD', key, score, member);
  zrem = (key: string, member: string) => this.op('ZREM', key, member);
  /** Sets fields of a hash: `field, value, field, value, …`. */
  hset = (key: string, ...fieldsAndValues: string[]) => this.op('HSET', key, ...fieldsAndValues);
  /** Sets a value that Redis forgets after `ms`. */
  setExpiring = (key: string, value: string, ms: number) => this.op('SET', key, value, 'PX', ms);
  expire = (key: string, ms: number) => this.op('PEXPIRE', key, ms);
  /** Commits only if the version at `key` is still `version` (null: none yet), and moves it on. */
  bump = (key: string, version: string | null) => this.expect(key, version).set(key, String(Number(version ?? 0) + 1));
  /** Appends to a list that keeps only its last `cap` entries. */
  rpushCapped = (key: string, value: string, cap: number) => this.op('RPUSH', key, value).op('LTRIM', key, -cap, -1);

  async commit(redis: Redis): Promise<boolean> {
    const spec = JSON.stringify({ checks: this.checks, ops: this.ops });
    return (await compareAndSet(redis)(this.keys.length, ...this.keys, spec)) === 1;
  }

  private op(command: string, key: string, ...args: Array<string | number>): this {
    this.ops.push([command, this.slot(key), ...args]);
    return this;
  }

  private slot(key: string): number {
    const index = this.keys.indexOf(key);
    if (index !== -1) return index + 1;
    this.keys.push(key);
    return this.keys.length;
  }
}
