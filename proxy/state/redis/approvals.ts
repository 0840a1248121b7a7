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
import { indexMember } from './keys.ts';
import { newestFirst } from './newest-first.ts';
import { RedisRecords } from './records.ts';

/** At most this many index entries are read to fill one page of a filtered list. */
const LIST_SCAN_MAX = 20_000;

/**
 * Approval requests for a fleet: each a JSON value, every one in a lexicographic index (newest first)
 * and the pending ones in a set scored by their expiry; each move a compare-and-set on the value.
 */
export class RedisApprovals extends RedisRecords implements ApprovalStore {
  async insert(approval: ApprovalRecord): Promise<void> {
    await new Cas()
      .expect(this.key.approval(approval.approvalId), null)
      .set(this.key.approval(approval.approvalId), JSON.stringify(approval))
      .zadd(this.key.approvalsAll(), indexMember(approval.requestedAt, approval.approvalId))
      .zaddScored(this.key.approvalsPending(), approval.approvalId, approval.expiresAt)
      .commit(this.redis);
  }

  byId(approvalId: string): Promise<ApprovalRecord | undefined> {
    return this.read(this.key.approval(approvalId));
  }

  async list(query: ApprovalQuery): Promise<ApprovalPage> {
    const cursor = query.cursor ? decodeApprovalCursor(query.cursor) : undefined;
    const found = await newestFirst<ApprovalRecord>(this.redis, {
      index: this.key.approvalsAll(),
      valueKey: this.key.approval,
      after: cursor && indexMember(cursor.requestedAt, cursor.approvalId),
      limit: query.limit,
      keep: (approval) => !query.state || approval.state === query.state,
      scanMax: LIST_SCAN_MAX,
    });
    return approvalPage(found, query.limit);
  }

  async move(approvalId: string, revision: number, change: ApprovalChange): Promise<ApprovalRecord | undefined> {
    const approvalKey = this.key.approval(approvalId);
    const cas = new Cas();
    const approval = await this.watch<ApprovalRecord>(cas, approvalKey);
    if (!approval || approval.revision !== revision) return undefined;
    const next: ApprovalRecord = { ...approval, ...change, revision: revision + 1 };
    cas.set(approvalKey, JSON.stringify(next));
    if (next.state !== 'pending') cas.zrem(this.key.approvalsPending(), approvalId);
    return (await cas.commit(this.redis)) ? next : undefined;
  }

  async overdue(now: number, limit: number): Promise<ApprovalRecord[]> {
    const ids = await this.redis.zrangebyscore(this.key.approvalsPending(), '-inf', now, 'LIMIT', 0, limit);
    const approvals = await this.readAll<ApprovalRecord>(ids.map(this.key.approval));
    return approvals.filter((approval) => approval.state === 'pending');
  }

  pendingCount(now: number): Promise<number> {
    return this.redis.zcount(this.key.approvalsPending(), `(${now}`, '+inf');
  }
}
