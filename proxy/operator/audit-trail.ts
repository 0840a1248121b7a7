/**
 * The audit trail that names who (issue 37): every sign-in, change, approval, rejection, export and role
 * change, appended with the person, their role, the time, the request, the address and the state
 * before and after; each record chained to the one before by hash (state/audit.ts), and `verify` walks
 * the chain to the first record edited, removed or inserted.
 */
import {
  auditHash,
  GENESIS_HASH,
  type AuditActor,
  type AuditRecord,
  type AuditStore,
  type AuditVia,
} from '../state/audit.ts';
import type { OperatorRecord } from '../state/operators.ts';
import type { OperatorPrincipal } from './credentials.ts';

export type { AuditActor, AuditRecord };

/** Where a request came from, for its audit record. */
export interface AuditContext {
  requestId: string | null;
  ip: string | null;
  userAgent: string | null;
}

export const NO_CONTEXT: AuditContext = { requestId: null, ip: null, userAgent: null };

/** The command line's actor: no operator, the tool's name. */
export const CLI_ACTOR: AuditActor = { operatorId: null, name: 'kassa-proxy', role: null, via: 'cli' };

/** A person as the trail names them (their id, name and role, nothing more of the account), acting through `via`. */
export const personActor = (
  person: Pick<OperatorRecord, 'operatorId' | 'name' | 'role'>,
  via: AuditVia,
): AuditActor => ({ operatorId: person.operatorId, name: person.name, role: person.role, via });

/** An operator as the trail names them, through the credential they acted with. */
export const actorOf = (operator: OperatorPrincipal): AuditActor => personActor(operator, operator.credential.kind);

export interface AuditDetails {
  target?: { type: string; id: string } | null;
  before?: unknown;
  after?: unknown;
}

export type VerifyReport =
  | { ok: true; records: number; headHash: string }
  | { ok: false; seq: number; problem: 'edited' | 'removed' | 'inserted'; message: string };

const BATCH = 500;

export class AuditTrail {
  constructor(
    private readonly store: AuditStore,
    private readonly now: () => number = Date.now,
  ) {}

  record(actor: AuditActor, action: string, context: AuditContext, details: AuditDetails = {}): Promise<AuditRecord> {
    return this.store.append({
      at: this.now(),
      actor,
      action,
      target: details.target ?? null,
      requestId: context.requestId,
      ip: context.ip,
      userAgent: context.userAgent?.slice(0, 300) ?? null,
      before: details.before ?? null,
      after: details.after ?? null,
    });
  }

  /** Walks the whole chain from the first record to the head; the first fault found, or how many verified. */
  async verify(): Promise<VerifyReport> {
    const head = await this.store.head();
    const last = head?.seq ?? 0;
    let previous = GENESIS_HASH;
    let expected = 1;
    while (expected <= last) {
      const records = await this.store.range(expected, Math.min(BATCH, last - expected + 1));
      if (!records.length || records[0]!.seq !== expected) return removed(expected);
      for (const record of records) {
        if (record.seq !== expected) return removed(expected);
        if (auditHash(record) !== record.hash)
          return fault(record.seq, 'edited', `record ${record.seq} was edited: its hash does not match its content`);
        if (record.prevHash !== previous)
          return fault(
            record.seq,
            'inserted',
            `record ${record.seq} does not follow record ${record.seq - 1}: a record was inserted or replaced before it`,
          );
        previous = record.hash;
        expected++;
      }
    }
    if (head && head.hash !== previous)
      return fault(last, 'edited', `record ${last} was edited or replaced: it is not the head the store recorded`);
    const beyond = await this.store.range(last + 1, 1);
    if (beyond.length)
      return fault(last + 1, 'inserted', `record ${last + 1} was inserted after the last one the store recorded`);
    return { ok: true, records: last, headHash: previous };
  }
}

const fault = (seq: number, problem: 'edited' | 'removed' | 'inserted', message: string): VerifyReport => ({
  ok: false,
  seq,
  problem,
  message,
});

const removed = (seq: number): VerifyReport => fault(seq, 'removed', `record ${seq} was removed`);
