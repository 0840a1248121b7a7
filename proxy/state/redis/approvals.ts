import type { Redis } from 'ioredis';
import {
  approvalPage,
  decodeApprovalCursor,
  type ApprovalChange,
  type ApprovalPage,
  type ApprovalQuery,
  type ApprovalRecord,
  type ApprovalStore,
} from '../approvals.ts';
import { Cas } from './cas.ts';
import { guarded } from './faults.ts';
import { idOfMember, indexMember, type RedisKeys } from './keys.ts';

/** At most this many index entries are read to fill one page of a filtered list. */
const LIST_SCAN_MAX = 20_000;

const parse = (raw: string | null): ApprovalRecord | undefined =>
  raw === null ? undefined : (JSON.parse(raw) as ApprovalRecord);

/**
 * Approval requests for a fleet: each a JSON value, every one in a lexicographic index (newest first)
 * and the pending ones in a set scored by their expiry; each move a compare-and-set on the value.
 */
export class RedisApprovals implements ApprovalStore {
  constructor(
    private readonly redis: Redis,
    private readonly key: RedisKeys,
  ) {}

  insert(approval: ApprovalRecord): Promise<void> {
    return guarded(async () => {
      await new Cas()
        .expect(this.key.approval(approval.approvalId), null)
        .set(this.key.approval(approval.approvalId), JSON.stringify(approval))
        .zadd(this.key.approvalsAll(), indexMember(approval.requestedAt, approval.approvalId))
        .zaddScored(this.key.approvalsPending(), approval.approvalId, approval.expiresAt)
        .commit(this.redis);
    });
  }

  byId(approvalId: string): Promise<ApprovalRecord | undefined> {
    return guarded(async () => parse(await this.redis.get(this.key.approval(approvalId))));
  }

  async list(query: ApprovalQuery): Promise<ApprovalPage> {
    const cursor = query.cursor ? decodeApprovalCursor(query.cursor) : undefined;
    return guarded(async () => {
      const found: ApprovalRecord[] = [];
      let max = cursor ? `(${indexMember(cursor.requestedAt, cursor.approvalId)}` : '+';
      for (let read = 0; found.length <= query.limit && read < LIST_SCAN_MAX; read += 200) {
        const members = await this.redis.zrevrangebylex(this.key.approvalsAll(), max, '-', 'LIMIT', 0, 200);
        if (!members.length) break;
        const records = await this.redis.mget(members.map((member) => this.key.approval(idOfMember(member))));
        for (const approval of records.map(parse))
          if (approval && (!query.state || approval.state === query.state)) found.push(approval);
        max = `(${members[members.length - 1]!}`;
        if (members.length < 200) break;
      }
      return approvalPage(found, query.limit);
    });
  }

  move(approvalId: string, revision: number, change: ApprovalChange): Promise<ApprovalRecord | undefined> {
    const approvalKey = this.key.approval(approvalId);
    return guarded(async () => {
      const raw = await this.redis.get(approvalKey);
      const approval = parse(raw);
      if (!approval || approval.revision !== revision) return undefined;
      const next: ApprovalRecord = { ...approval, ...change, revision: revision + 1 };
      const cas = new Cas().expect(approvalKey, raw).set(approvalKey, JSON.stringify(next));
      if (next.state !== 'pending') cas.zrem(this.key.approvalsPending(), approvalId);
      return (await cas.commit(this.redis)) ? next : undefined;
    });
  }

  overdue(now: number, limit: number): Promise<ApprovalRecord[]> {
    return guarded(async () => {
      const ids = await this.redis.zrangebyscore(this.key.approvalsPending(), '-inf', now, 'LIMIT', 0, limit);
      if (!ids.length) return [];
      const records = await this.redis.mget(ids.map((id) => this.key.approval(id)));
      return records.flatMap((raw) => {
        const approval = parse(raw);
        return approval?.state === 'pending' ? [approval] : [];
      });
    });
  }

  pendingCount(now: number): Promise<number> {
    return guarded(() => this.redis.zcount(this.key.approvalsPending(), `(${now}`, '+inf'));
  }
}
