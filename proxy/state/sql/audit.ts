import { AUDIT_SCAN_MAX, matchesAudit, sealAuditRecord } from '../audit.ts';
import type { AuditEntry, AuditHead, AuditQuery, AuditRecord, AuditStore } from '../audit.ts';
import type { Database, Sql } from './database.ts';
import { RecordTable } from './rows.ts';

const LOG = new RecordTable<AuditRecord>('audit_log', 'seq at operatorId action targetId');

/** Records read at a time when a filtered list looks for its page. */
const SCAN_PAGE = 500;

/**
 * The audit trail in the database: each record JSON under its number (`audit_log`), and the head
 * (`audit_head`: the last number and hash) in its own row, so that a removed last record shows too.
 * An append holds the dialect's `audit` lock for its transaction (PostgreSQL's advisory lock; SQLite's
 * transactions are serial already), so appends from every instance make one chain without gaps,
 * the first one included, when there is no head row yet to lock.
 */
export class SqlAudit implements AuditStore {
  constructor(private readonly db: Database) {}

  append(entry: AuditEntry): Promise<AuditRecord> {
    return this.db.transaction(async (tx) => {
      await this.db.dialect.lock(tx, 'audit');
      const record = sealAuditRecord(entry, await headOf(tx));
      await LOG.insert(tx, record, { operatorId: record.actor.operatorId, targetId: record.target?.id ?? null });
      await tx.run(
        'INSERT INTO audit_head (id, seq, hash) VALUES (1, ?, ?) ON CONFLICT (id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash',
        [record.seq, record.hash],
      );
      return record;
    });
  }

  head(): Promise<AuditHead | undefined> {
    return headOf(this.db);
  }

  range(fromSeq: number, limit: number): Promise<AuditRecord[]> {
    return LOG.all(this.db, 'WHERE seq >= ? AND seq < ? ORDER BY seq', [fromSeq, fromSeq + limit]);
  }

  async list(query: AuditQuery): Promise<AuditRecord[]> {
    const found: AuditRecord[] = [];
    let before = query.beforeSeq ?? Number.MAX_SAFE_INTEGER;
    for (let read = 0; found.length < query.limit && read < AUDIT_SCAN_MAX; read += SCAN_PAGE) {
      const page = await LOG.all(this.db, 'WHERE seq < ? ORDER BY seq DESC LIMIT ?', [before, SCAN_PAGE]);
      found.push(...page.filter((record) => matchesAudit(record, query)));
      if (page.length < SCAN_PAGE) break;
      before = page[page.length - 1]!.seq;
    }
    return found.slice(0, query.limit);
  }
}

const headOf = (sql: Sql) => sql.row<AuditHead>('SELECT seq, hash FROM audit_head WHERE id = 1');
