/**
 * Dual control and the audit at the HTTP edge, for every feature's operator routes: a money route
 * asks for a second person (202 with the pending request) or, below the threshold, acts at once; an
 * approval request as the API shows it; the audit context of a request.
 */
import type { Context } from 'hono';
import type { ApprovalView } from '../../schemas/operators.ts';
import { clientAddress } from '../../server-kit/client-address.ts';
import type { ApprovalRecord, ApprovalRequest, Approvals } from './approvals.ts';
import { actorOf, type AuditContext, type AuditDetails, type AuditTrail } from './audit-trail.ts';
import type { OperatorPrincipal } from './credentials.ts';
import type { OperatorEnv } from './operator-auth.ts';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** What the edge helpers use of the operator parts (operator-parts.ts). */
export interface EdgeParts {
  approvals: Approvals;
  audit: AuditTrail;
  /** Believe X-Forwarded-For for the audit's address (KASSA_TRUST_PROXY). */
  trustProxy: boolean;
}

/** Where an operator's request came from, for its audit record. */
export const auditContextOf = (c: Context<OperatorEnv>, trustProxy: boolean): AuditContext => ({
  requestId: c.get('requestId') ?? null,
  ip: clientAddress(c, trustProxy),
  userAgent: c.req.header('User-Agent') ?? null,
});

/** Appends what the calling operator did to the audit trail. */
export const audited = (c: Context<OperatorEnv>, parts: EdgeParts, action: string, details: AuditDetails = {}) =>
  parts.audit.record(actorOf(c.var.operator), action, auditContextOf(c, parts.trustProxy), details);

/** Appends what the merchant's server did with one of its keys (its id names it) to the audit trail. */
export const auditedForKey = (
  c: Context,
  parts: EdgeParts,
  keyId: string,
  action: string,
  details: AuditDetails = {},
) =>
  parts.audit.record(
    { operatorId: null, name: `merchant key ${keyId}`, role: null, via: 'api' },
    action,
    // The request's id and address, as for an operator's request; no operator is named.
    auditContextOf(c as Context<OperatorEnv>, parts.trustProxy),
    details,
  );

/** An approval request as the API shows it to `viewer`. */
export function approvalView(approval: ApprovalRecord, viewer: OperatorPrincipal): ApprovalView {
  return {
    approvalId: approval.approvalId,
    kind: approval.kind,
    target: approval.target,
    summary: approval.summary,
    payload: approval.payload,
    permission: approval.permission,
    state: approval.state,
    requestedBy: approval.requestedBy,
    requestedAt: iso(approval.requestedAt)!,
    expiresAt: iso(approval.expiresAt)!,
    decidedBy: approval.decidedBy,
    decidedAt: iso(approval.decidedAt),
    reason: approval.reason,
    result: approval.result,
    canDecide:
      approval.state === 'pending' &&
      approval.expiresAt > Date.now() &&
      approval.requestedBy.operatorId !== viewer.operatorId &&
      viewer.permissions.includes(approval.permission),
  };
}

/**
 * A money route: a pending request for a second person (202), unless `amount` is below the merchant's
 * threshold, when `act` runs at once (as the route did before dual control).
 */
export async function requestOrAct(
  c: Context<OperatorEnv>,
  parts: EdgeParts,
  request: ApprovalRequest & { amount: string | null },
  act: () => Promise<Response>,
): Promise<Response> {
  const { amount, ...asked } = request;
  if (!parts.approvals.needsSecondPerson(amount)) return act();
  const operator = c.var.operator;
  const approval = await parts.approvals.request(asked, operator, auditContextOf(c, parts.trustProxy));
  return c.json(approvalView(approval, operator), 202);
}
