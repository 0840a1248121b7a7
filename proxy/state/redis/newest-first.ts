import type { Redis } from 'ioredis';
import { idOfMember, parse } from './keys.ts';

/** At most this many index entries are read to fill one page of a filtered list. */
const SCAN_MAX = 5_000;

/**
 * A page of a list newest first, from a lexicographic index (`indexMember`) whose members name
 * values: from `after` (the member a cursor names) on, `limit` of those `keep` takes, and whether
 * there are more. Values Redis has forgotten (delivered ones expire) leave their index entry behind:
 * tidied as they are met.
 */
export async function newestFirst<T>(
  redis: Redis,
  query: {
    index: string;
    valueKey: (id: string) => string;
    after: string | undefined;
    limit: number;
    keep: (value: T) => boolean;
  },
): Promise<{ items: T[]; more: boolean }> {
  const items: T[] = [];
  let max = query.after ? `(${query.after}` : '+';
  let scanned = 0;
  let more = false;
  while (scanned < SCAN_MAX) {
    const batch = Math.min(500, Math.max(50, (query.limit + 1) * 2));
    const members = await redis.zrevrangebylex(query.index, max, '-', 'LIMIT', 0, batch);
    if (members.length === 0) break;
    scanned += members.length;
    const values = await redis.mget(...members.map((member) => query.valueKey(idOfMember(member))));
    const gone: string[] = [];
    for (const [index, member] of members.entries()) {
      const value = parse<T>(values[index]);
      if (!value) gone.push(member);
      else if (!query.keep(value)) continue;
      else if (items.length === query.limit) {
        more = true;
        break;
      } else items.push(value);
    }
    if (gone.length) await redis.zrem(query.index, ...gone);
    if (more || members.length < batch) break;
    max = `(${members[members.length - 1]!}`;
  }
  return { items, more };
}
