import { http } from '../http.ts';
import { as, type TestOperator } from '../operators.ts';
import { passkeyRecord } from '../store-records.ts';
import type { Walk } from './walk.ts';

/**
 * Infrastructure and scripts, then operators as people: device sign-in, the team, personal tokens,
 * sessions, passkeys and the audit. A viewer made here is returned, for the refusals of later parts.
 */
export async function walkPeople(
  { stack, origin }: Walk,
  pendingApprovalId: string,
): Promise<{ viewer: TestOperator }> {
  // Infrastructure, scripts and this document.
  for (const path of ['/livez', '/healthz', '/readyz', '/openapi.json', '/docs', '/docs/redoc.standalone.js'])
    await http(`${origin}${path}`);
  await stack.operator('/metrics');
  await http(`${origin}/metrics`);
  // Operators as people: device sign-in, who I am, a refusal for a missing permission, signing out.
  const viewer = await stack.addOperator('viewer');
  const device = (await http(`${origin}/operator/device/code`, { body: { client_name: 'OpenAPI walk' } })).body;
  const poll = { grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: device.device_code };
  await http(`${origin}/operator/device/token`, { body: poll });
  await http(`${origin}/operator/device/code`, { body: { client_name: '' } });
  await stack.operator('/operator/device/approve', { body: { user_code: 'BBBB-BBBB', approve: true } });
  await stack.operator('/operator/device/approve', { body: { user_code: device.user_code, approve: true } });
  await stack.operator('/operator/device/approve', { body: { user_code: device.user_code, approve: true } });
  const deviceToken = (await http(`${origin}/operator/device/token`, { body: poll })).body.access_token as string;
  await as(origin, viewer)('/api/operator/me');
  await as(origin, viewer)('/api/payments/export');
  await http(`${origin}/api/operator/me`, { headers: { Authorization: 'Bearer kassa_pat_unknown' } });
  await as(origin, { headers: { Authorization: `Bearer ${deviceToken}` } })('/api/operator/me/credential', {
    method: 'DELETE',
  });
  // The team, one's own tokens, sessions and passkeys, and the audit.
  await stack.operator('/api/operators');
  const invited = (
    await stack.operator('/api/operators', { body: { name: 'Invited', email: 'invited@shop.test', role: 'support' } })
  ).body;
  await stack.operator('/api/operators', { body: { name: 'Again', email: 'INVITED@shop.test', role: 'support' } });
  await stack.operator('/api/operators', { body: { name: 'Bad', email: 'not-an-address', role: 'support' } });
  await stack.operator(`/api/operators/${invited.operator.operatorId}`, {
    method: 'PATCH',
    body: { role: 'viewer' },
  });
  await stack.operator('/api/operators/op_0000000000000000000000', { method: 'PATCH', body: { state: 'suspended' } });
  await stack.operator(`/api/operators/${invited.operator.operatorId}/sessions`);
  await stack.operator(`/api/operators/op_0000000000000000000000/sessions`);
  await stack.operator(`/api/operators/${invited.operator.operatorId}`, { method: 'DELETE' });
  await stack.operator(`/api/operators/${invited.operator.operatorId}`, { method: 'DELETE' });
  const token = (await stack.operator('/api/operator/tokens', { body: { name: 'walk', role: 'viewer' } })).body;
  await as(origin, viewer)('/api/operator/tokens', { body: { name: 'up', role: 'admin' } });
  await stack.operator('/api/operator/tokens');
  await stack.operator('/api/operator/sessions');
  // Passkeys are registered by the sign-in page; one stored here stands for it.
  await stack.proxy.services.store.operators.insertPasskey(
    passkeyRecord({ credentialId: 'walk-passkey', operatorId: stack.admin.operatorId }),
  );
  await stack.operator('/api/operator/passkeys');
  await stack.operator('/api/operator/passkeys/walk-passkey', { method: 'DELETE' });
  await stack.operator('/api/operator/passkeys/unknown', { method: 'DELETE' });
  await as(origin, viewer)(`/api/approvals/${pendingApprovalId}/approve`, { method: 'POST' });
  await stack.operator(`/api/credentials/${token.credential.credentialId}`, { method: 'DELETE' });
  await stack.operator('/api/credentials/cred_0000000000000000000000', { method: 'DELETE' });
  await stack.operator('/api/audit?limit=5');
  await stack.operator('/api/audit?cursor=x');
  await stack.operator('/api/audit/export?format=csv');
  await stack.operator('/api/audit/export?format=xml');
  await as(origin, viewer)('/api/audit');
  await http(`${origin}/kassa.js`);
  await http(`${origin}/kassa/not-built.js`);
  return { viewer };
}
