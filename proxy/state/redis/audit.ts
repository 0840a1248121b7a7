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
import { RedisRecords } from './records.ts';

const BATCH = 500;

/**
 * The audit trail for a fleet: each record a JSON value under its number, and the head (the last
 * number and hash) in a key of its own. An append is a compare-and-set on the head, so appends from
 * every instance make one line; one that lost the race seals again after the new head.
 */
export class RedisAudit extends RedisRecords implements AuditStore {
  append(entry: AuditEntry): Promise<AuditRecord> {
    const headKey = this.key.auditHead();
    return this.transact(async (cas) => {
      const record = sealAuditRecord(entry, await this.watch<AuditHead>(cas, headKey));
      cas
        .set(headKey, JSON.stringify({ seq: record.seq, hash: record.hash }))
        .expect(this.key.auditRecord(record.seq), null)
        .set(this.key.auditRecord(record.seq), JSON.stringify(record));
      return record;
    }, 200);
  }

  head(): Promise<AuditHead | undefined> {
    return this.read(this.key.auditHead());
  }

  range(fromSeq: number, limit: number): Promise<AuditRecord[]> {
    return this.readAll(Array.from({ length: limit }, (_, index) => this.key.auditRecord(fromSeq + index)));
  }

  async list(query: AuditQuery): Promise<AuditRecord[]> {
    const head = await this.head();
    let below = Math.min(query.beforeSeq ?? Infinity, (head?.seq ?? 0) + 1);
    const found: AuditRecord[] = [];
    for (let read = 0; found.length < query.limit && below > 1 && read < AUDIT_SCAN_MAX; read += BATCH) {
      const seqs = Array.from({ length: Math.min(BATCH, below - 1) }, (_, index) => below - 1 - index);
      const page = await this.readAll<AuditRecord>(seqs.map(this.key.auditRecord));
      found.push(...page.filter((record) => matchesAudit(record, query)));
      below = seqs[seqs.length - 1]!;
    }
    return found.slice(0, query.limit);
  }
}
