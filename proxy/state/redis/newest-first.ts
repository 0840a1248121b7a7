import type { Redis } from 'ioredis';
import { idOfMember, parse } from './keys.ts';

/**
 * A page of a list newest first, from a lexicographic index (`indexMember`) whose members name
 * values: from `after` (the member a cursor names) on, up to `limit` + 1 of those `keep` takes (one
 * past the page says there are more), reading at most `scanMax` index entries. Values Redis has
 * forgotten (delivered ones expire) leave their index entry behind: tidied as they are met.
 */
export async function newestFirst<T>(
  redis: Redis,
  query: {
    index: string;
    valueKey: (id: string) => string;
    after: string | undefined;
    limit: number;
    keep?: (value: T) => boolean;
    scanMax?: number;
  },
): Promise<T[]> {
  const { limit, keep = () => true, scanMax = 5_000 } = query;
  const found: T[] = [];
  let max = query.after ? `(${query.after}` : '+';
  for (let scanned = 0; found.length <= limit && scanned < scanMax;) {
    const batch = Math.min(500, Math.max(50, (limit + 1) * 2), scanMax - scanned);
    const members = await redis.zrevrangebylex(query.index, max, '-', 'LIMIT', 0, batch);
    if (members.length === 0) break;
    scanned += members.length;
    const values = await redis.mget(...members.map((member) => query.valueKey(idOfMember(member))));
    const gone: string[] = [];
    for (const [index, member] of members.entries()) {
      const value = parse<T>(values[index]);
      if (!value) gone.push(member);
      else if (keep(value)) found.push(value);
      if (found.length > limit) break;
    }
    if (gone.length) await redis.zrem(query.index, ...gone);
    if (members.length < batch) break;
    max = `(${members[members.length - 1]!}`;
  }
  return found;
}
