/**
 * Dual control for money (issue 37), as Circle Mint's and Fireblocks' approval policies have it:
 * creating a mint order, changing an order, retrying a mint and marking a refund become a pending
 * request that a second person with the same permission approves or rejects. Only an approval runs
 * the action, exactly once (compare-and-set pending → approved, then the action, then executed or
 * failed); the requester cannot approve their own; requests expire. Below the merchant's threshold
 * (KASSA_APPROVAL_THRESHOLD) one person suffices.
 */
import { compareDecimals } from '../../lib/money.ts';
import { ConflictError, GoneError, NotAllowedError, NotFoundError } from '../domain/domain-errors.ts';
import type { Permission } from '../../schemas/operators.ts';
import type {
  ApprovalKind,
  ApprovalPage,
  ApprovalPerson,
  ApprovalQuery,
  ApprovalRecord,
  ApprovalStore,
} from '../state/approvals.ts';
import { actorOf, type AuditContext, type AuditTrail } from './audit-trail.ts';
import { randomId, type OperatorPrincipal } from './credentials.ts';

export type { ApprovalKind, ApprovalRecord };

export const APPROVAL_TTL_MS = 24 * 3_600_000;

/** Runs an approved request's action as it was asked; what it made (an order id, a state) for the request's result. */
export type ApprovalExecutor = (
  approval: ApprovalRecord,
  context: AuditContext,
) => Promise<Record<string, string | number | null>>;

export interface ApprovalRequest {
  kind: ApprovalKind;
  target: string | null;
  payload: Record<string, unknown>;
  summary: ApprovalRecord['summary'];
  permission: Permission;
}

const personOf = (operator: OperatorPrincipal): ApprovalPerson => ({
  operatorId: operator.operatorId,
  name: operator.name,
  role: operator.role,
});

const SYSTEM = { operatorId: null, name: 'Kassa', role: null, via: 'system' } as const;

export class Approvals {
  private readonly executors = new Map<ApprovalKind, ApprovalExecutor>();

  constructor(
    private readonly store: ApprovalStore,
    private readonly audit: AuditTrail,
    private readonly policy: {
      /** Tokens (or money, for a refund) below which one person suffices; null: every request needs two. */
      threshold: string | null;
      /** How long a request waits for a second person (24 hours). */
      ttlMs?: number | undefined;
    },
    private readonly now: () => number = Date.now,
  ) {}

  /** The feature that owns a kind of action runs it once approved. */
  register(kind: ApprovalKind, executor: ApprovalExecutor): void {
    this.executors.set(kind, executor);
  }

  /** Whether an action of this amount needs a second person (the threshold, or none: always). */
  needsSecondPerson(amount: string | null): boolean {
    const { threshold } = this.policy;
    return threshold === null || amount === null || compareDecimals(amount, threshold) >= 0;
  }

  async request(input: ApprovalRequest, by: OperatorPrincipal, context: AuditContext): Promise<ApprovalRecord> {
    const now = this.now();
    const approval: ApprovalRecord = {
      ...input,
      approvalId: randomId('apr_'),
      requestedBy: personOf(by),
      requestedAt: now,
      expiresAt: now + (this.policy.ttlMs ?? APPROVAL_TTL_MS),
      state: 'pending',
      decidedBy: null,
      decidedAt: null,
      reason: null,
      result: null,
      revision: 1,
    };
    await this.store.insert(approval);
    await this.audit.record(actorOf(by), 'approval.requested', context, {
      target: { type: 'approval', id: approval.approvalId },
      after: { kind: approval.kind, target: approval.target, summary: approval.summary },
    });
    return approval;
  }

  /** A request as it stands (an overdue pending one is expired first). */
  async get(approvalId: string): Promise<ApprovalRecord> {
    const approval = await this.store.byId(approvalId);
    if (!approval) throw new NotFoundError('No approval request has this id');
    return this.expireIfOverdue(approval);
  }

  async list(query: ApprovalQuery): Promise<ApprovalPage> {
    await this.sweep();
    return this.store.list(query);
  }

  /**
   * A second person with the request's permission approves it: it runs once, whoever else approves at
   * the same moment; the request then says executed with what it made, or failed with the error.
   */
  async approve(approvalId: string, by: OperatorPrincipal, context: AuditContext): Promise<ApprovalRecord> {
    const approval = await this.decidable(approvalId, by);
    const approved = await this.store.move(approvalId, approval.revision, {
      state: 'approved',
      decidedBy: personOf(by),
      decidedAt: this.now(),
    });
    if (!approved) throw new ConflictError('Someone decided this request a moment ago');
    const target = { type: 'approval', id: approvalId };
    await this.audit.record(actorOf(by), 'approval.approved', context, {
      target,
      before: { state: 'pending' },
      after: { state: 'approved', kind: approved.kind, summary: approved.summary },
    });
    const executor = this.executors.get(approved.kind);
    let result: Record<string, string | number | null>;
    let state: 'executed' | 'failed';
    try {
      if (!executor) throw new Error(`${approved.kind} cannot be run by this proxy (is the on-ramp on?)`);
      result = await executor(approved, context);
      state = 'executed';
    } catch (error) {
      result = { error: error instanceof Error ? error.message : String(error) };
      state = 'failed';
    }
    // Only this caller moved it to approved, so only this caller ends it.
    const ended = (await this.store.move(approvalId, approved.revision, { state, result }))!;
    await this.audit.record(actorOf(by), `approval.${state}`, context, { target, after: { state, result } });
    return ended;
  }

  async reject(
    approvalId: string,
    by: OperatorPrincipal,
    reason: string,
    context: AuditContext,
  ): Promise<ApprovalRecord> {
    const approval = await this.decidable(approvalId, by);
    return this.end(approval, by, 'rejected', reason, context);
  }

  /** The requester withdraws their own request. */
  async cancel(
    approvalId: string,
    by: OperatorPrincipal,
    reason: string | null,
    context: AuditContext,
  ): Promise<ApprovalRecord> {
    const approval = await this.pending(approvalId);
    if (approval.requestedBy.operatorId !== by.operatorId)
      throw new NotAllowedError('Only the person who asked can cancel a request; others reject it');
    return this.end(approval, by, 'cancelled', reason, context);
  }

  /** Moves every overdue pending request to expired (each one audited). */
  async sweep(): Promise<void> {
    for (const approval of await this.store.overdue(this.now(), 100)) await this.expireIfOverdue(approval);
  }

  pendingCount(): Promise<number> {
    return this.store.pendingCount(this.now());
  }

  private async end(
    approval: ApprovalRecord,
    by: OperatorPrincipal,
    state: 'rejected' | 'cancelled',
    reason: string | null,
    context: AuditContext,
  ): Promise<ApprovalRecord> {
    const ended = await this.store.move(approval.approvalId, approval.revision, {
      state,
      decidedBy: personOf(by),
      decidedAt: this.now(),
      reason,
    });
    if (!ended) throw new ConflictError('Someone decided this request a moment ago');
    await this.audit.record(actorOf(by), `approval.${state}`, context, {
      target: { type: 'approval', id: approval.approvalId },
      before: { state: 'pending' },
      after: { state, reason },
    });
    return ended;
  }

  /** A pending request that `by` may decide: another person's, with its permission. */
  private async decidable(approvalId: string, by: OperatorPrincipal): Promise<ApprovalRecord> {
    const approval = await this.pending(approvalId);
    if (approval.requestedBy.operatorId === by.operatorId)
      throw new NotAllowedError('A second person must approve: you asked for this yourself');
    if (!by.permissions.includes(approval.permission))
      throw new NotAllowedError(
        `This needs the permission ${approval.permission}; your role ${by.role} does not have it`,
        {
          fields: { permission: approval.permission },
        },
      );
    return approval;
  }

  private async pending(approvalId: string): Promise<ApprovalRecord> {
    const approval = await this.get(approvalId);
    if (approval.state === 'expired') throw new GoneError('This request expired before anyone decided it: ask again');
    if (approval.state !== 'pending') throw new ConflictError(`This request is ${approval.state} already`);
    return approval;
  }

  private async expireIfOverdue(approval: ApprovalRecord): Promise<ApprovalRecord> {
    if (approval.state !== 'pending' || approval.expiresAt > this.now()) return approval;
    const expired = await this.store.move(approval.approvalId, approval.revision, { state: 'expired' });
    if (!expired) return (await this.store.byId(approval.approvalId)) ?? approval;
    await this.audit.record(
      SYSTEM,
      'approval.expired',
      { requestId: null, ip: null, userAgent: null },
      {
        target: { type: 'approval', id: approval.approvalId },
        before: { state: 'pending' },
        after: { state: 'expired' },
      },
    );
    return expired;
  }
}
