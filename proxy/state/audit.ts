/**
 * The audit trail (issue 37): who did what, append-only, one line fleet-wide. Each record carries the
 * hash of the one before it and its own hash over its canonical JSON, so a record edited, removed or
 * inserted in the database breaks the chain where it happened (`kassa-proxy audit verify`). Every
 * backend appends in one serialised step (a transaction holding the head on SQL, compare-and-set on the
 * head in Redis) and passes test/proxy/operator-store-contract.test.ts.
 */
import { createHash } from 'node:crypto';
import type { Role } from '../../schemas/operators.ts';

export type AuditVia = 'web' | 'device' | 'api' | 'cli' | 'setup' | 'system';

export interface AuditActor {
  /** Null for a failed sign-in of an unknown account, the command line and the proxy itself. */
  operatorId: string | null;
  name: string;
  role: Role | null;
  via: AuditVia;
}

/** What a caller appends; the store numbers and seals it. */
export interface AuditEntry {
  /** Epoch ms. */
  at: number;
  actor: AuditActor;
  /** `signin`, `operator.invited`, `approval.approved`, `payments.exported` … (docs/operators.md). */
  action: string;
  target: { type: string; id: string } | null;
  requestId: string | null;
  ip: string | null;
  userAgent: string | null;
  /** The state before and after, as JSON; never a secret. */
  before: unknown;
  after: unknown;
}

export interface AuditRecord extends AuditEntry {
  /** 1, 2, 3 … without gaps. */
  seq: number;
  /** The hash of record seq - 1 (GENESIS for the first). */
  prevHash: string;
  /** SHA-256 (hex) over the record's canonical JSON, `hash` left out. */
  hash: string;
}

export interface AuditHead {
  seq: number;
  hash: string;
}

export const GENESIS_HASH = '0'.repeat(64);

export interface AuditQuery {
  /** Newest first, from before this seq (the previous page's nextCursor). */
  beforeSeq?: number | undefined;
  operatorId?: string | undefined;
  action?: string | undefined;
  targetId?: string | undefined;
  from?: number | undefined;
  to?: number | undefined;
  limit: number;
}

export interface AuditStore {
  /** Numbers and seals the entry after the current head, atomically fleet-wide. */
  append(entry: AuditEntry): Promise<AuditRecord>;
  /** The last record's number and hash, as the store keeps them apart from the records. */
  head(): Promise<AuditHead | undefined>;
  /** Records `fromSeq` … `fromSeq + limit - 1` as they are stored (missing ones left out), oldest first. */
  range(fromSeq: number, limit: number): Promise<AuditRecord[]>;
  /** Newest first; every filter given must hold. Reads at most a bounded number of records per page. */
  list(query: AuditQuery): Promise<AuditRecord[]>;
}

/** JSON with every object's keys sorted, so that a record hashes alike wherever it was stored. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object')
    return `{${Object.keys(value)
      .filter((key) => (value as Record<string, unknown>)[key] !== undefined)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`)
      .join(',')}}`;
  return JSON.stringify(value);
}

/** The hash a record must have: over its canonical JSON without `hash` (its prevHash included). */
export function auditHash(record: Omit<AuditRecord, 'hash'> & { hash?: string }): string {
  const { hash: _, ...sealed } = record;
  return createHash('sha256').update(canonicalJson(sealed)).digest('hex');
}

/** The entry numbered and sealed after `head`: what every store writes. */
export function sealAuditRecord(entry: AuditEntry, head: AuditHead | undefined): AuditRecord {
  const unsealed = { ...entry, seq: (head?.seq ?? 0) + 1, prevHash: head?.hash ?? GENESIS_HASH };
  return { ...unsealed, hash: auditHash(unsealed) };
}

/** Whether a record passes the filters of a query (stores that cannot index them filter here). */
export function matchesAudit(record: AuditRecord, query: AuditQuery): boolean {
  return (
    (!query.operatorId || record.actor.operatorId === query.operatorId) &&
    (!query.action || record.action === query.action || record.action.startsWith(`${query.action}.`)) &&
    (!query.targetId || record.target?.id === query.targetId) &&
    (query.from === undefined || record.at >= query.from) &&
    (query.to === undefined || record.at < query.to)
  );
}

/** At most this many records are read to fill one page of a filtered list. */
export const AUDIT_SCAN_MAX = 20_000;
