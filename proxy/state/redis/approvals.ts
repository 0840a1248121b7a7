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
import { idOfMember, indexMember, parse } from './keys.ts';
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
    const found: ApprovalRecord[] = [];
    let max = cursor ? `(${indexMember(cursor.requestedAt, cursor.approvalId)}` : '+';
    for (let read = 0; found.length <= query.limit && read < LIST_SCAN_MAX; read += 200) {
      const members = await this.redis.zrevrangebylex(this.key.approvalsAll(), max, '-', 'LIMIT', 0, 200);
      if (!members.length) break;
      for (const approval of await this.readAll<ApprovalRecord>(members.map(idOfMember).map(this.key.approval)))
        if (!query.state || approval.state === query.state) found.push(approval);
      max = `(${members[members.length - 1]!}`;
      if (members.length < 200) break;
    }
    return approvalPage(found, query.limit);
  }

  async move(approvalId: string, revision: number, change: ApprovalChange): Promise<ApprovalRecord | undefined> {
    const approvalKey = this.key.approval(approvalId);
    const raw = await this.redis.get(approvalKey);
    const approval = parse<ApprovalRecord>(raw);
    if (!approval || approval.revision !== revision) return undefined;
    const next: ApprovalRecord = { ...approval, ...change, revision: revision + 1 };
    const cas = new Cas().expect(approvalKey, raw).set(approvalKey, JSON.stringify(next));
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
