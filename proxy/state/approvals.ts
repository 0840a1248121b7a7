/**
 * Dual control (issue 37): the money actions an operator asked for, waiting for a second person.
 * Every move of a request is compare-and-set on its revision, so two approvers racing give one
 * approval, and one execution. Every backend implements `ApprovalStore` alike.
 */
import type { ApprovalKind, ApprovalState, Permission, Role } from '../../schemas/operators.ts';
import { decodePosition, InvalidCursorError, pageAfter, type Page } from './cursors.ts';

export type { ApprovalKind, ApprovalState };

export interface ApprovalPerson {
  operatorId: string;
  name: string;
  role: Role;
}

export interface ApprovalRecord {
  /** `apr_` + 128 random bits, base64url. */
  approvalId: string;
  kind: ApprovalKind;
  /** The order or purchase acted on; null for an order to create. */
  target: string | null;
  /** The validated request body, executed as it is once approved. */
  payload: Record<string, unknown>;
  /** What the approver reads: amount, coin, chain, wallet, purchase … */
  summary: Record<string, string | number | null>;
  /** What approving needs: the permission the request needed. */
  permission: Permission;
  requestedBy: ApprovalPerson;
  /** Epoch ms. */
  requestedAt: number;
  expiresAt: number;
  state: ApprovalState;
  decidedBy: ApprovalPerson | null;
  decidedAt: number | null;
  /** The rejection's or cancellation's reason. */
  reason: string | null;
  /** What the execution made (an order id, the purchase's state), or its error in words. */
  result: Record<string, string | number | null> | null;
  revision: number;
}

export type ApprovalChange = Partial<Pick<ApprovalRecord, 'state' | 'decidedBy' | 'decidedAt' | 'reason' | 'result'>>;

export interface ApprovalQuery {
  state?: ApprovalState | undefined;
  limit: number;
  /** The previous page's nextCursor. */
  cursor?: string | undefined;
}

export type ApprovalPage = Page<'approvals', ApprovalRecord>;

export interface ApprovalStore {
  insert(approval: ApprovalRecord): Promise<void>;
  byId(approvalId: string): Promise<ApprovalRecord | undefined>;
  /** Newest first. */
  list(query: ApprovalQuery): Promise<ApprovalPage>;
  /** Applies `change` if the request is still at `revision`; undefined when someone moved it first. */
  move(approvalId: string, revision: number, change: ApprovalChange): Promise<ApprovalRecord | undefined>;
  /** Requests still `pending` whose expiry has passed by `now`, oldest first (the sweep expires them). */
  overdue(now: number, limit: number): Promise<ApprovalRecord[]>;
  /** Requests still `pending` and not expired at `now` (the gauge). */
  pendingCount(now: number): Promise<number>;
}

export class InvalidApprovalCursorError extends InvalidCursorError {}

export function decodeApprovalCursor(cursor: string): { requestedAt: number; approvalId: string } {
  const [requestedAt, approvalId] = decodePosition(cursor, 'apr_[A-Za-z0-9_-]{1,64}', InvalidApprovalCursorError);
  return { requestedAt, approvalId };
}

/** A page of a list read `limit + 1` deep; its cursor, the position (requestedAt, approvalId) of the last request. */
export function approvalPage(found: ApprovalRecord[], limit: number): ApprovalPage {
  const { items, nextCursor } = pageAfter(found, limit, false, (last) => [last.requestedAt, last.approvalId]);
  return { approvals: items, nextCursor };
}
