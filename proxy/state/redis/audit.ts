import type { Redis } from 'ioredis';
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
import { Cas, optimistically } from './cas.ts';
import { guarded } from './faults.ts';
import type { RedisKeys } from './keys.ts';

const BATCH = 500;

/**
 * The audit trail for a fleet: each record a JSON value under its number, and the head (the last
 * number and hash) in a key of its own. An append is a compare-and-set on the head, so appends from
 * every instance make one line; one that lost the race seals again after the new head.
 */
export class RedisAudit implements AuditStore {
  constructor(
    private readonly redis: Redis,
    private readonly key: RedisKeys,
  ) {}

  append(entry: AuditEntry): Promise<AuditRecord> {
    const headKey = this.key.auditHead();
    return guarded(() =>
      optimistically<AuditRecord>(async () => {
        const raw = await this.redis.get(headKey);
        const record = sealAuditRecord(entry, raw === null ? undefined : (JSON.parse(raw) as AuditHead));
        const committed = await new Cas()
          .expect(headKey, raw)
          .set(headKey, JSON.stringify({ seq: record.seq, hash: record.hash }))
          .expect(this.key.auditRecord(record.seq), null)
          .set(this.key.auditRecord(record.seq), JSON.stringify(record))
          .commit(this.redis);
        return committed ? { value: record } : undefined;
      }, 200),
    );
  }

  head(): Promise<AuditHead | undefined> {
    return guarded(async () => {
      const raw = await this.redis.get(this.key.auditHead());
      return raw === null ? undefined : (JSON.parse(raw) as AuditHead);
    });
  }

  range(fromSeq: number, limit: number): Promise<AuditRecord[]> {
    return guarded(() => this.read(Array.from({ length: limit }, (_, index) => fromSeq + index)));
  }

  list(query: AuditQuery): Promise<AuditRecord[]> {
    return guarded(async () => {
      const head = await this.head();
      let below = Math.min(query.beforeSeq ?? Infinity, (head?.seq ?? 0) + 1);
      const found: AuditRecord[] = [];
      for (let read = 0; found.length < query.limit && below > 1 && read < AUDIT_SCAN_MAX; read += BATCH) {
        const seqs = Array.from({ length: Math.min(BATCH, below - 1) }, (_, index) => below - 1 - index);
        const page = await this.read(seqs);
        found.push(...page.filter((record) => matchesAudit(record, query)));
        below = seqs[seqs.length - 1]!;
      }
      return found.slice(0, query.limit);
    });
  }

  /** The records of these numbers that exist, in the order asked. */
  private async read(seqs: number[]): Promise<AuditRecord[]> {
    if (!seqs.length) return [];
    const raws = await this.redis.mget(seqs.map((seq) => this.key.auditRecord(seq)));
    return raws.flatMap((raw) => (raw === null ? [] : [JSON.parse(raw) as AuditRecord]));
  }
}
