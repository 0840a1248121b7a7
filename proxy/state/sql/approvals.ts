import { approvalPage, decodeApprovalCursor } from '../approvals.ts';
import type { ApprovalChange, ApprovalPage, ApprovalQuery, ApprovalRecord, ApprovalStore } from '../approvals.ts';
import type { Database } from './database.ts';
import { atRevision, RecordTable } from './rows.ts';

const APPROVALS = new RecordTable<ApprovalRecord>('approvals', 'approvalId state requestedAt expiresAt');
const NEWEST = APPROVALS.newestFirst('approval_id', 'requested_at');

/**
 * Approval requests in the database (`approvals`): each JSON, beside its state and times. A move is
 * compare-and-set on the revision, the row held `FOR UPDATE`: two approvers racing give one approval.
 */
export class SqlApprovals implements ApprovalStore {
  constructor(private readonly db: Database) {}

  async insert(approval: ApprovalRecord): Promise<void> {
    await APPROVALS.insert(this.db, approval);
  }

  byId(approvalId: string): Promise<ApprovalRecord | undefined> {
    return APPROVALS.get(this.db, approvalId);
  }

  async list(query: ApprovalQuery): Promise<ApprovalPage> {
    const after = query.cursor ? decodeApprovalCursor(query.cursor) : undefined;
    const rows = await NEWEST.rows(this.db, after && [after.requestedAt, after.approvalId], query.limit, {
      'state = ?': query.state,
    });
    return approvalPage(rows, query.limit);
  }

  async move(approvalId: string, revision: number, change: ApprovalChange): Promise<ApprovalRecord | undefined> {
    return (await APPROVALS.change(this.db, approvalId, atRevision(revision, change)))[1];
  }

  overdue(now: number, limit: number): Promise<ApprovalRecord[]> {
    return APPROVALS.all(this.db, "WHERE state = 'pending' AND expires_at <= ? ORDER BY expires_at LIMIT ?", [
      now,
      limit,
    ]);
  }

  async pendingCount(now: number): Promise<number> {
    return (await this.db.row<{ n: number }>(
      "SELECT count(*) AS n FROM approvals WHERE state = 'pending' AND expires_at > ?",
      [now],
    ))!.n;
  }
}
