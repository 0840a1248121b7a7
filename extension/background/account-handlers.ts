/**
 * The requests about people: the operator's own session (device sign-in, who I am, sign-out), dual
 * control's approval requests, the admins' team and the audit trail. Each is one call to the proxy's
 * route for it, its answer checked against the proxy's schema; the proxy judges every permission.
 */
import { auditListSchema } from '../../schemas/audit.ts';
import {
  approvalListSchema,
  approvalSchema,
  credentialListSchema,
  invitedOperatorSchema,
  operatorListSchema,
  operatorViewSchema,
} from '../../schemas/operators.ts';
import { decidable, refreshBadge, showCount } from './approvals-badge.ts';
import { cancelSignIn, startSignIn } from './device-signin.ts';
import { operatorCall, operatorFile, ProxyCallError, whoAmI } from './operator-api.ts';
import { endSession, pendingSignIn, sessionView, storedSession } from './operator-session.ts';
import { proxyAnswer, query } from './proxy-answer.ts';
import { RefusedRequest, type UiHandlers } from './ui-requests.ts';

const id = (value: string) => encodeURIComponent(value);

/** Signs this device out at the proxy that issued its token, then forgets the token whatever the proxy said. */
async function signOut(): Promise<void> {
  const session = await storedSession();
  if (!session) return;
  try {
    await operatorCall('/api/operator/me/credential', { method: 'DELETE' });
  } catch (error) {
    // Refused (401): the proxy had ended it already. Otherwise it is forgotten here all the same.
    if (!(error instanceof ProxyCallError && error.status === 401)) {
      await endSession(null, session.token);
      throw new Error(
        `Signed out on this computer, but the proxy could not be told (${(error as Error).message}): revoke this device from another session`,
      );
    }
  }
  await endSession(null, session.token);
}

/**
 * Another proxy URL was saved: the device session of the old one is forgotten here first, then signed
 * out there (the only place its token may go; at most a few seconds, whatever the answer), and a
 * sign-in under way with it stops. Forgotten first: a view's call still using the token would
 * otherwise meet the revocation and end the session as refused, before this says why.
 */
export async function leaveOtherProxy(proxyUrl: string | null): Promise<void> {
  const [session, pending] = await Promise.all([storedSession(), pendingSignIn()]);
  if (pending && pending.proxyUrl !== proxyUrl) await cancelSignIn();
  if (!session || session.proxyUrl === proxyUrl) return;
  await endSession({ reason: 'proxy-changed', detail: null }, session.token);
  await fetch(`${session.proxyUrl}/api/operator/me/credential`, {
    method: 'DELETE',
    headers: { Authorization: `Bearer ${session.token}` },
    cache: 'no-store',
    credentials: 'omit',
    signal: AbortSignal.timeout(5_000),
  }).catch(() => undefined);
}

/** An action on an approval request: its new state, and the badge counted again. */
async function decide(path: string, body?: unknown) {
  const approval = proxyAnswer(approvalSchema, await operatorCall(path, { method: 'POST', body }));
  void refreshBadge();
  return approval;
}

export const accountHandlers = {
  'session.get': async ({ fresh }) => {
    if (fresh && (await storedSession())) await whoAmI().catch(() => undefined);
    return sessionView();
  },
  'session.signIn': async () => {
    await startSignIn();
    return sessionView();
  },
  'session.cancelSignIn': async () => {
    await cancelSignIn();
    return sessionView();
  },
  'session.openApprovalPage': async () => {
    const pending = await pendingSignIn();
    if (!pending) throw new RefusedRequest('No sign-in is waiting for approval: sign in again');
    await chrome.tabs.create({ url: pending.verificationUri });
    return sessionView();
  },
  'session.signOut': async () => {
    await signOut();
    return sessionView();
  },
  'approvals.list': async ({ state, cursor }) => {
    const list = proxyAnswer(
      approvalListSchema,
      await operatorCall(`/api/approvals${query({ state, limit: 100, cursor })}`),
    );
    // The whole pending list is what the badge counts: no second call for it.
    if (state === 'pending' && !cursor && !list.nextCursor) void showCount(decidable(list.approvals));
    return list;
  },
  'approvals.get': async (request) =>
    proxyAnswer(approvalSchema, await operatorCall(`/api/approvals/${id(request.id)}`)),
  'approvals.approve': (request) => decide(`/api/approvals/${id(request.id)}/approve`),
  'approvals.reject': (request) => decide(`/api/approvals/${id(request.id)}/reject`, { reason: request.reason }),
  'approvals.cancel': (request) => decide(`/api/approvals/${id(request.id)}/cancel`, {}),
  'team.list': async () => proxyAnswer(operatorListSchema, await operatorCall('/api/operators')),
  'team.invite': async ({ name, email, role }) =>
    proxyAnswer(
      invitedOperatorSchema,
      await operatorCall('/api/operators', { method: 'POST', body: { name, email, role } }),
    ),
  'team.update': async ({ operatorId, role, state }) => {
    const body = { ...(role ? { role } : {}), ...(state ? { state } : {}) };
    return proxyAnswer(
      operatorViewSchema,
      await operatorCall(`/api/operators/${id(operatorId)}`, { method: 'PATCH', body }),
    );
  },
  'team.remove': async ({ operatorId }) => {
    await operatorCall(`/api/operators/${id(operatorId)}`, { method: 'DELETE' });
    return { done: true };
  },
  'team.sessions': async ({ operatorId }) =>
    proxyAnswer(credentialListSchema, await operatorCall(`/api/operators/${id(operatorId)}/sessions`)),
  'team.revoke': async ({ credentialId }) => {
    await operatorCall(`/api/credentials/${id(credentialId)}`, { method: 'DELETE' });
    return { done: true };
  },
  'audit.list': async ({ operatorId, action, from, to, cursor }) =>
    proxyAnswer(
      auditListSchema,
      await operatorCall(`/api/audit${query({ operatorId, action, from, to, cursor, limit: 100 })}`),
    ),
  'audit.export': async ({ format, from, to }) => {
    const type = format === 'csv' ? 'text/csv' : 'application/x-ndjson';
    const file = await operatorFile(`/api/audit/export${query({ format, from, to })}`, type);
    return { filename: file.filename, text: file.text, type };
  },
} satisfies Partial<UiHandlers>;
