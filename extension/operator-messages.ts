/**
 * What the pages and the service worker say to each other about the operator's session and the
 * actions about people (types only: the session port's messages and the answers of money actions).
 * The device token itself is never in any of them.
 */
import type { ApprovalView as ApprovalRequestView, Permission, Role } from '../schemas/operators.ts';

export type { ApprovalRequestView };

/**
 * Why there is no session now, shown until the next sign-in: `refused`, the proxy stopped accepting
 * the device (revoked, expired, the person suspended or removed); `denied`, the code was denied on the
 * approval page; `code-expired`, nobody approved it in time; `token-retired`, a shared operator token
 * of an earlier version was dropped; `proxy-changed`, another proxy URL was saved; `failed`, the
 * sign-in stopped for the reason in `detail` (the proxy's words).
 */
export type SessionEnd = 'refused' | 'denied' | 'code-expired' | 'token-retired' | 'proxy-changed' | 'failed';

/** The operator's device session as the pages see it: never its token. */
export interface OperatorSessionView {
  state: 'signed-out' | 'signing-in' | 'signed-in';
  proxyUrl: string | null;
  notice: { reason: SessionEnd; detail: string | null; proxyUrl: string | null } | null;
  /** While signing in: the code to show and the page where it is approved. */
  signIn: { userCode: string; verificationUri: string; expiresAt: number } | null;
  /** While signed in: whose device this is, what they may do, and until when. */
  operator: {
    /** Null until the proxy was asked who this device is. */
    operatorId: string | null;
    name: string;
    email: string;
    role: Role;
    permissions: Permission[];
    expiresAt: string | null;
    idleExpiresAt: string | null;
  } | null;
}

/** On the session port: the session as it is now (at once, then on every change). */
export interface SessionPortMessage {
  type: 'session';
  session: OperatorSessionView;
}

/** A money action's answer: done at once (below the merchant's threshold), or a request a second person decides. */
export type MoneyAnswer<T> = { done: T } | { sentForApproval: ApprovalRequestView };

/** The audit export as the worker hands it to a page, which saves it as a file. */
export interface AuditExport {
  filename: string;
  text: string;
  type: string;
}
