import { Hono } from 'hono';
import { getCookie } from 'hono/cookie';
import { operatorMeSchema, type OperatorMe } from '../../schemas/operators.ts';
import type { ApiOperations } from '../http/openapi/operation.ts';
import { STORE_DOWN } from '../http/openapi/problems.ts';
import type { ProxyServices } from '../services.ts';
import { operatorGuards, SESSION_COOKIE, type OperatorEnv } from './operator-auth.ts';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** The caller's own account: who they are and this credential, and signing this credential out. */
export function operatorAccountRoutes({ operators, store }: ProxyServices): Hono<OperatorEnv> {
  const app = new Hono<OperatorEnv>();
  const guard = operatorGuards(operatorAccountOperations, operators.access);

  app.get('/api/operator/me', guard('GET /api/operator/me'), (c) => {
    const { operator } = c.var;
    const session = operator.credential.kind === 'web' ? getCookie(c, SESSION_COOKIE) : undefined;
    c.header('Cache-Control', 'no-store');
    return c.json({
      operatorId: operator.operatorId,
      name: operator.name,
      email: operator.email,
      role: operator.role,
      permissions: operator.permissions,
      credential: {
        credentialId: operator.credential.id,
        kind: operator.credential.kind,
        name: operator.credential.name,
        expiresAt: iso(operator.credential.expiresAt)!,
        idleExpiresAt: iso(operator.credential.idleExpiresAt),
      },
      csrfToken: session === undefined ? null : operators.credentials.csrfTokenFor(session),
    } satisfies OperatorMe);
  });

  app.delete('/api/operator/me/credential', guard('DELETE /api/operator/me/credential'), async (c) => {
    await store.operators.revokeCredential(c.var.operator.credential.id, Date.now());
    return c.body(null, 204);
  });

  return app;
}

export const operatorAccountOperations: ApiOperations = {
  'GET /api/operator/me': {
    operationId: 'getOperatorMe',
    summary: 'Who I am',
    description:
      'The caller: their account, the role and permissions this credential acts with, and the credential itself (kind, expiry). The extension shows it in Settings; the sign-in page takes its CSRF token from it.',
    audience: 'operator',
    access: { auth: 'operator', permission: 'self' },
    responses: {
      200: {
        description: 'The caller',
        json: {
          schema: operatorMeSchema,
          example: {
            operatorId: 'op_Q2hKxV0t3mYb9sLr1fWz8A',
            name: 'Ada Lovelace',
            email: 'ada@shop.example',
            role: 'finance',
            permissions: [
              'payments:read',
              'orders:read',
              'purchases:read',
              'events:read',
              'payments:resolve',
              'events:redeliver',
              'orders:write',
              'purchases:act',
              'payments:export',
            ],
            credential: {
              credentialId: 'cred_f3K9xQm2LwV7bN1sTz0ReA',
              kind: 'device',
              name: 'Kassa extension on Chromium',
              expiresAt: '2026-04-01T09:14:05.000Z',
              idleExpiresAt: '2026-03-09T09:14:05.000Z',
            },
            csrfToken: null,
          } satisfies OperatorMe,
        },
      },
    },
    errors: { 503: STORE_DOWN },
  },
  'DELETE /api/operator/me/credential': {
    operationId: 'signOutCredential',
    summary: 'Sign this credential out',
    description:
      'Revokes the credential the request is made with (the extension’s Sign out; a script giving up its token): it stops working at once, on every instance.',
    audience: 'operator',
    access: { auth: 'operator', permission: 'self' },
    responses: { 204: { description: 'Signed out' } },
    errors: { 503: STORE_DOWN },
  },
};
