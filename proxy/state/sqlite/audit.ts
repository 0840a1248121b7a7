import type Database from 'better-sqlite3';
import {
  AUDIT_SCAN_MAX,
  matchesAudit,
  sealAuditRecord,
  type AuditEntry,
  type AuditHead,
  type AuditQuery,
  type AuditRecord,
  type AuditStore,
} from '../audit.ts';

type Sql = (text: string) => Database.Statement;

const records = (rows: unknown[]): AuditRecord[] =>
  rows.map((row) => JSON.parse((row as { record: string }).record) as AuditRecord);

/**
 * The audit trail in the SQLite file: each record JSON under its number (`audit_log`), and the head
 * (`audit_head`: the last number and hash) in its own row, so that a removed last record shows too.
 * An append is one immediate transaction: one writer at a time.
 */
export class SqliteAudit implements AuditStore {
  constructor(
    private readonly db: Database.Database,
    private readonly sql: Sql,
  ) {}

  async append(entry: AuditEntry): Promise<AuditRecord> {
    return this.db
      .transaction(() => {
        const record = sealAuditRecord(entry, this.currentHead());
        this.sql(
          'INSERT INTO audit_log (seq, at, operator_id, action, target_id, record) VALUES (?, ?, ?, ?, ?, ?)',
        ).run(
          record.seq,
          record.at,
          record.actor.operatorId,
          record.action,
          record.target?.id ?? null,
          JSON.stringify(record),
        );
        this.sql(
          'INSERT INTO audit_head (id, seq, hash) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash',
        ).run(record.seq, record.hash);
        return record;
      })
      .immediate();
  }

  async head(): Promise<AuditHead | undefined> {
    return this.currentHead();
  }

  async range(fromSeq: number, limit: number): Promise<AuditRecord[]> {
    return records(
      this.sql('SELECT record FROM audit_log WHERE seq >= ? AND seq < ? ORDER BY seq').all(fromSeq, fromSeq + limit),
    );
  }

  async list(query: AuditQuery): Promise<AuditRecord[]> {
    const found: AuditRecord[] = [];
    let before = query.beforeSeq ?? Number.MAX_SAFE_INTEGER;
    for (let read = 0; found.length < query.limit && read < AUDIT_SCAN_MAX; read += 500) {
      const page = records(
        this.sql('SELECT record FROM audit_log WHERE seq < ? ORDER BY seq DESC LIMIT 500').all(before),
      );
      found.push(...page.filter((record) => matchesAudit(record, query)));
      if (page.length < 500) break;
      before = page[page.length - 1]!.seq;
    }
    return found.slice(0, query.limit);
  }

  private currentHead(): AuditHead | undefined {
    return this.sql('SELECT seq, hash FROM audit_head WHERE id = 1').get() as AuditHead | undefined;
  }
}
