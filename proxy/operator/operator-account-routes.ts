import { Hono, type Context } from 'hono';
import { getCookie } from 'hono/cookie';
import {
  createdTokenSchema,
  createTokenRequestSchema,
  credentialListSchema,
  operatorMeSchema,
  passkeyListSchema,
  type CredentialKind,
  type OperatorMe,
} from '../../schemas/operators.ts';
import { parseJsonBody } from '../../server-kit/json-body.ts';
import { ConflictError, NotAllowedError, NotFoundError } from '../domain/domain-errors.ts';
import { HttpProblem } from '../http/http-problem.ts';
import { refusePrivateKeys } from '../http/middleware/refuse-private-keys.ts';
import { audited } from './dual-control.ts';
import { credentialView, passkeyView } from './operator-views.ts';
import { permissionsOf, roleAtMost } from './permissions.ts';
import { actingOf, credentialExample } from './team-routes.ts';
import type { ApiOperations } from '../http/openapi/operation.ts';
import { BAD_BODY, STORE_DOWN } from '../http/openapi/problems.ts';
import type { ProxyServices } from '../services.ts';
import { operatorGuards, SESSION_COOKIE, type OperatorEnv } from './operator-auth.ts';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/**
 * The caller's own account: who they are and this credential, signing it out, their personal API
 * tokens, their sessions and devices, and their passkeys. Every person may always manage their own.
 */
export function operatorAccountRoutes({ config, operators, store }: ProxyServices): Hono<OperatorEnv> {
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
    await audited(c, operators, 'signout', { target: { type: 'credential', id: c.var.operator.credential.id } });
    return c.body(null, 204);
  });

  const mine = async (c: Context<OperatorEnv>, kinds: readonly CredentialKind[]) => {
    const credentials = await store.operators.credentialsOf(c.var.operator.operatorId);
    return credentials
      .filter((credential) => kinds.includes(credential.kind))
      .map((credential) => credentialView(credential, c.var.operator.credential.id));
  };

  app.get('/api/operator/tokens', guard('GET /api/operator/tokens'), async (c) =>
    c.json({ credentials: await mine(c, ['api']) }),
  );

  app.post(
    '/api/operator/tokens',
    guard('POST /api/operator/tokens'),
    refusePrivateKeys({ freeText: ['name'] }),
    async (c) => {
      const parsed = await parseJsonBody(c, createTokenRequestSchema);
      if (!parsed.ok) throw new HttpProblem(400, parsed.error);
      const owner = await store.operators.operatorById(c.var.operator.operatorId);
      if (!owner) throw new HttpProblem(401, 'Your account is gone');
      // Never above the role this credential acts with (an API token cannot mint a stronger one).
      const role = parsed.data.role ?? c.var.operator.role;
      if (!roleAtMost(role, c.var.operator.role))
        throw new NotAllowedError(`A token's role cannot be above yours (${c.var.operator.role})`);
      const { secret, credential } = await operators.accounts.createToken(
        owner,
        { name: parsed.data.name, role, expiresInDays: parsed.data.expiresInDays },
        actingOf(c, config.trustProxy),
      );
      c.header('Cache-Control', 'no-store');
      return c.json({ token: secret, credential: credentialView(credential, c.var.operator.credential.id) }, 201);
    },
  );

  app.get('/api/operator/sessions', guard('GET /api/operator/sessions'), async (c) =>
    c.json({ credentials: await mine(c, ['web', 'device']) }),
  );

  app.get('/api/operator/passkeys', guard('GET /api/operator/passkeys'), async (c) =>
    c.json({ passkeys: (await store.operators.passkeysOf(c.var.operator.operatorId)).map(passkeyView) }),
  );

  app.delete(
    '/api/operator/passkeys/:credentialId',
    guard('DELETE /api/operator/passkeys/{credentialId}'),
    async (c) => {
      const id = c.req.param('credentialId');
      const { operatorId } = c.var.operator;
      const theirs = await store.operators.passkeysOf(operatorId);
      // Never the last way a person signs in: their only passkey, unless they sign in with the company's provider.
      if (
        theirs.length === 1 &&
        theirs[0]!.credentialId === id &&
        !(await store.operators.operatorById(operatorId))?.ssoSubject
      )
        throw new ConflictError('This is your only way to sign in: add another passkey first', {
          details: { problem: 'last-passkey' },
        });
      if (!(await store.operators.deletePasskey(operatorId, id)))
        throw new NotFoundError('No passkey of yours has this id');
      await audited(c, operators, 'passkey.removed', { target: { type: 'passkey', id } });
      return c.body(null, 204);
    },
  );

  return app;
}

const passkeyExample = {
  credentialId: 'kJ3v0sQx7LmB2nR9tY1wZg',
  name: 'Laptop',
  deviceType: 'multiDevice' as const,
  backedUp: true,
  transports: ['internal', 'hybrid'],
  createdAt: '2026-03-01T08:05:00.000Z',
  lastUsedAt: '2026-03-02T09:13:40.000Z',
};

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
            permissions: permissionsOf('finance'),
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
  'GET /api/operator/tokens': {
    operationId: 'listMyTokens',
    summary: 'My personal API tokens',
    description: 'Every personal API token of the caller’s, with its role, expiry and last use; never the secret.',
    audience: 'operator',
    access: { auth: 'operator', permission: 'self' },
    responses: {
      200: {
        description: 'The tokens',
        json: {
          schema: credentialListSchema,
          example: {
            credentials: [
              { ...credentialExample, kind: 'api', name: 'nightly export', role: 'viewer', idleExpiresAt: null },
            ],
          },
        },
      },
    },
    errors: { 503: STORE_DOWN },
  },
  'POST /api/operator/tokens': {
    operationId: 'createMyToken',
    summary: 'Make a personal API token',
    description:
      'For a script: a token with a name, a role no higher than the caller’s (theirs by default) and an expiry (90 days by default, at most 365). The secret is in this answer only; it is stored hashed, and revoked with its owner. Audited.',
    audience: 'operator',
    access: { auth: 'operator', permission: 'self' },
    request: {
      schema: createTokenRequestSchema,
      example: { name: 'nightly export', role: 'viewer', expiresInDays: 30 },
    },
    responses: {
      201: {
        description: 'The token, shown once',
        json: {
          schema: createdTokenSchema,
          example: {
            token: 'kassa_pat_Jw3nQ8sV1xKc7bLm0Tz5rY2dFe9gHu4kPo6iIa2nMx0',
            credential: {
              ...credentialExample,
              kind: 'api',
              name: 'nightly export',
              role: 'viewer',
              idleExpiresAt: null,
              current: false,
            },
          },
        },
      },
    },
    errors: { 400: BAD_BODY, 403: 'The role asked for is above the caller’s', 503: STORE_DOWN },
  },
  'GET /api/operator/sessions': {
    operationId: 'listMySessions',
    summary: 'My sessions and devices',
    description:
      'The caller’s web sessions and signed-in devices (the extension), newest first; `current` marks this one.',
    audience: 'operator',
    access: { auth: 'operator', permission: 'self' },
    responses: {
      200: {
        description: 'The sessions and devices',
        json: { schema: credentialListSchema, example: { credentials: [credentialExample] } },
      },
    },
    errors: { 503: STORE_DOWN },
  },
  'GET /api/operator/passkeys': {
    operationId: 'listMyPasskeys',
    summary: 'My passkeys',
    description: 'The passkeys the caller signs in with.',
    audience: 'operator',
    access: { auth: 'operator', permission: 'self' },
    responses: {
      200: {
        description: 'The passkeys',
        json: {
          schema: passkeyListSchema,
          example: {
            passkeys: [passkeyExample],
          },
        },
      },
    },
    errors: { 503: STORE_DOWN },
  },
  'DELETE /api/operator/passkeys/{credentialId}': {
    operationId: 'removeMyPasskey',
    summary: 'Remove one of my passkeys',
    description:
      'It can no longer sign in. Never the caller’s last way to sign in (their only passkey, unless they sign in with the company’s provider). Audited.',
    audience: 'operator',
    access: { auth: 'operator', permission: 'self' },
    params: {
      credentialId: { description: 'The passkey’s WebAuthn credential id', example: passkeyExample.credentialId },
    },
    responses: { 204: { description: 'Removed' } },
    errors: {
      404: 'No passkey of yours has this id',
      409: 'It is the caller’s only way to sign in (`details.problem: last-passkey`): add another passkey first',
      503: STORE_DOWN,
    },
  },
};
