/**
 * The requests about people: the operator's own session (device sign-in, who I am, sign-out), dual
 * control's approval requests, the admins' team and the audit trail. Each is one call to the proxy's
 * route for it, its answer checked against the proxy's schema; the proxy judges every permission.
 */
import {
  approvalListSchema,
  approvalSchema,
  auditListSchema,
  credentialListSchema,
  invitedOperatorSchema,
  operatorListSchema,
  operatorViewSchema,
} from '../../schemas/operators.ts';
import type { UiRequest } from '../messages.ts';
import type { AuditExport } from '../operator-messages.ts';
import { decidable, refreshBadge, showCount } from './approvals-badge.ts';
import { cancelSignIn, startSignIn } from './device-signin.ts';
import { operatorCall, operatorFile, ProxyCallError, whoAmI } from './operator-api.ts';
import { endSession, pendingSignIn, sessionView, storedSession } from './operator-session.ts';
import { proxyAnswer, query } from './proxy-answer.ts';

type AccountKind = `${'session' | 'approvals' | 'team' | 'audit'}.${string}`;
export type AccountRequest = Extract<UiRequest, { kind: AccountKind }>;

export const isAccountRequest = (request: UiRequest): request is AccountRequest =>
  /^(session|approvals|team|audit)\./.test(request.kind);

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
 * Another proxy URL was saved: the device session of the old one is signed out there (the only place
 * its token may go; at most a few seconds, and forgotten whatever the answer) and a sign-in under way
 * with it stops.
 */
export async function leaveOtherProxy(proxyUrl: string | null): Promise<void> {
  const [session, pending] = await Promise.all([storedSession(), pendingSignIn()]);
  if (pending && pending.proxyUrl !== proxyUrl) await cancelSignIn();
  if (!session || session.proxyUrl === proxyUrl) return;
  await fetch(`${session.proxyUrl}/api/operator/me/credential`, {
    method: 'DELETE',
    headers: { Authorization: `Bearer ${session.token}` },
    cache: 'no-store',
    credentials: 'omit',
    signal: AbortSignal.timeout(5_000),
  }).catch(() => undefined);
  await endSession({ reason: 'proxy-changed', detail: null }, session.token);
}

/** An action on an approval request: its new state, and the badge counted again. */
async function decide(path: string, body?: unknown) {
  const approval = proxyAnswer(approvalSchema, await operatorCall(path, { method: 'POST', body }));
  void refreshBadge();
  return approval;
}

export async function handleAccount(request: AccountRequest): Promise<unknown> {
  switch (request.kind) {
    case 'session.get':
      if (request.fresh && (await storedSession())) await whoAmI().catch(() => undefined);
      return sessionView();
    case 'session.signIn':
      await startSignIn();
      return sessionView();
    case 'session.cancelSignIn':
      await cancelSignIn();
      return sessionView();
    case 'session.openApprovalPage': {
      const pending = await pendingSignIn();
      if (!pending) throw new Error('No sign-in is waiting for approval: sign in again');
      await chrome.tabs.create({ url: pending.verificationUri });
      return sessionView();
    }
    case 'session.signOut':
      await signOut();
      return sessionView();
    case 'approvals.list': {
      const list = proxyAnswer(
        approvalListSchema,
        await operatorCall(`/api/approvals${query({ state: request.state, limit: 100, cursor: request.cursor })}`),
      );
      // The whole pending list is what the badge counts: no second call for it.
      if (request.state === 'pending' && !request.cursor && !list.nextCursor) void showCount(decidable(list.approvals));
      return list;
    }
    case 'approvals.get':
      return proxyAnswer(approvalSchema, await operatorCall(`/api/approvals/${id(request.id)}`));
    case 'approvals.approve':
      return decide(`/api/approvals/${id(request.id)}/approve`);
    case 'approvals.reject':
      return decide(`/api/approvals/${id(request.id)}/reject`, { reason: request.reason });
    case 'approvals.cancel':
      return decide(`/api/approvals/${id(request.id)}/cancel`, {});
    case 'team.list':
      return proxyAnswer(operatorListSchema, await operatorCall('/api/operators'));
    case 'team.invite': {
      const { name, email, role } = request;
      const body = { name, email, role };
      return proxyAnswer(invitedOperatorSchema, await operatorCall('/api/operators', { method: 'POST', body }));
    }
    case 'team.update': {
      const body = {
        ...(request.role ? { role: request.role } : {}),
        ...(request.state ? { state: request.state } : {}),
      };
      const path = `/api/operators/${id(request.operatorId)}`;
      return proxyAnswer(operatorViewSchema, await operatorCall(path, { method: 'PATCH', body }));
    }
    case 'team.remove':
      await operatorCall(`/api/operators/${id(request.operatorId)}`, { method: 'DELETE' });
      return { done: true };
    case 'team.sessions':
      return proxyAnswer(credentialListSchema, await operatorCall(`/api/operators/${id(request.operatorId)}/sessions`));
    case 'team.revoke':
      await operatorCall(`/api/credentials/${id(request.credentialId)}`, { method: 'DELETE' });
      return { done: true };
    case 'audit.list': {
      const { operatorId, action, from, to, cursor } = request;
      return proxyAnswer(
        auditListSchema,
        await operatorCall(`/api/audit${query({ operatorId, action, from, to, cursor, limit: 100 })}`),
      );
    }
    case 'audit.export': {
      const type = request.format === 'csv' ? 'text/csv' : 'application/x-ndjson';
      const path = `/api/audit/export${query({ format: request.format, from: request.from, to: request.to })}`;
      const file = await operatorFile(path, type);
      return { filename: file.filename, text: file.text, type } satisfies AuditExport;
    }
  }
}
