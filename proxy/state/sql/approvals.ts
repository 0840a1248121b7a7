import { approvalPage, decodeApprovalCursor } from '../approvals.ts';
import type { ApprovalChange, ApprovalPage, ApprovalQuery, ApprovalRecord, ApprovalStore } from '../approvals.ts';
import type { Database, Sql } from './database.ts';
import { NewestFirst, recordOf, recordsOf, type RecordRow } from './rows.ts';

const APPROVALS = new NewestFirst<RecordRow>('SELECT record FROM approvals', 'approval_id', 'requested_at');

/**
 * Approval requests in the database (`approvals`): each JSON, beside its state and times. A move is
 * compare-and-set on the revision, the row held `FOR UPDATE`: two approvers racing give one approval.
 */
export class SqlApprovals implements ApprovalStore {
  constructor(private readonly db: Database) {}

  async insert(approval: ApprovalRecord): Promise<void> {
    await this.db.run(
      'INSERT INTO approvals (approval_id, state, requested_at, expires_at, record) VALUES (?, ?, ?, ?, ?)',
      [approval.approvalId, approval.state, approval.requestedAt, approval.expiresAt, JSON.stringify(approval)],
    );
  }

  byId(approvalId: string): Promise<ApprovalRecord | undefined> {
    return approvalOf(this.db, approvalId);
  }

  async list(query: ApprovalQuery): Promise<ApprovalPage> {
    const after = query.cursor ? decodeApprovalCursor(query.cursor) : undefined;
    const rows = await APPROVALS.rows(this.db, after && [after.requestedAt, after.approvalId], query.limit, {
      'state = ?': query.state,
    });
    return approvalPage(recordsOf(rows), query.limit);
  }

  move(approvalId: string, revision: number, change: ApprovalChange): Promise<ApprovalRecord | undefined> {
    return this.db.transaction(async (tx) => {
      const approval = await approvalOf(tx, approvalId, this.db.dialect.forUpdate);
      if (!approval || approval.revision !== revision) return undefined;
      const next = { ...approval, ...change, revision: revision + 1 };
      await tx.run('UPDATE approvals SET state = ?, record = ? WHERE approval_id = ?', [
        next.state,
        JSON.stringify(next),
        approvalId,
      ]);
      return next;
    });
  }

  async overdue(now: number, limit: number): Promise<ApprovalRecord[]> {
    return recordsOf(
      await this.db.rows<RecordRow>(
        "SELECT record FROM approvals WHERE state = 'pending' AND expires_at <= ? ORDER BY expires_at LIMIT ?",
        [now, limit],
      ),
    );
  }

  async pendingCount(now: number): Promise<number> {
    return (await this.db.row<{ n: number }>(
      "SELECT count(*) AS n FROM approvals WHERE state = 'pending' AND expires_at > ?",
      [now],
    ))!.n;
  }
}

const approvalOf = async (sql: Sql, approvalId: string, forUpdate = '') =>
  recordOf<ApprovalRecord>(
    await sql.row<RecordRow>(`SELECT record FROM approvals WHERE approval_id = ?${forUpdate}`, [approvalId]),
  );
