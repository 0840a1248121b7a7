import type Database from 'better-sqlite3';
import {
  approvalPage,
  decodeApprovalCursor,
  type ApprovalChange,
  type ApprovalPage,
  type ApprovalQuery,
  type ApprovalRecord,
  type ApprovalStore,
} from '../approvals.ts';

type Sql = (text: string) => Database.Statement;
type RecordRow = { record: string } | undefined;

const all = (rows: unknown[]): ApprovalRecord[] =>
  rows.map((row) => JSON.parse((row as { record: string }).record) as ApprovalRecord);

/** Approval requests in the SQLite file (`approvals`): each JSON, beside its state, times and revision. */
export class SqliteApprovals implements ApprovalStore {
  constructor(
    private readonly db: Database.Database,
    private readonly sql: Sql,
  ) {}

  async insert(approval: ApprovalRecord): Promise<void> {
    this.sql('INSERT INTO approvals (approval_id, state, requested_at, expires_at, record) VALUES (?, ?, ?, ?, ?)').run(
      approval.approvalId,
      approval.state,
      approval.requestedAt,
      approval.expiresAt,
      JSON.stringify(approval),
    );
  }

  async byId(approvalId: string): Promise<ApprovalRecord | undefined> {
    return this.approval(approvalId);
  }

  async list(query: ApprovalQuery): Promise<ApprovalPage> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (query.state) {
      where.push('state = ?');
      params.push(query.state);
    }
    if (query.cursor) {
      const after = decodeApprovalCursor(query.cursor);
      where.push('(requested_at, approval_id) < (?, ?)');
      params.push(after.requestedAt, after.approvalId);
    }
    const rows = this.sql(
      `SELECT record FROM approvals ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
         ORDER BY requested_at DESC, approval_id DESC LIMIT ?`,
    ).all(...params, query.limit + 1);
    return approvalPage(all(rows), query.limit);
  }

  async move(approvalId: string, revision: number, change: ApprovalChange): Promise<ApprovalRecord | undefined> {
    return this.db
      .transaction(() => {
        const approval = this.approval(approvalId);
        if (!approval || approval.revision !== revision) return undefined;
        const next = { ...approval, ...change, revision: revision + 1 };
        this.sql('UPDATE approvals SET state = ?, record = ? WHERE approval_id = ?').run(
          next.state,
          JSON.stringify(next),
          approvalId,
        );
        return next;
      })
      .immediate();
  }

  async overdue(now: number, limit: number): Promise<ApprovalRecord[]> {
    return all(
      this.sql(
        "SELECT record FROM approvals WHERE state = 'pending' AND expires_at <= ? ORDER BY expires_at LIMIT ?",
      ).all(now, limit),
    );
  }

  async pendingCount(now: number): Promise<number> {
    return (
      this.sql("SELECT COUNT(*) AS n FROM approvals WHERE state = 'pending' AND expires_at > ?").get(now) as {
        n: number;
      }
    ).n;
  }

  private approval(approvalId: string): ApprovalRecord | undefined {
    const row = this.sql('SELECT record FROM approvals WHERE approval_id = ?').get(approvalId) as RecordRow;
    return row ? (JSON.parse(row.record) as ApprovalRecord) : undefined;
  }
}
