import { Hono, type Context } from 'hono';
import {
  credentialListSchema,
  invitedOperatorSchema,
  inviteOperatorRequestSchema,
  operatorListSchema,
  operatorViewSchema,
  updateOperatorRequestSchema,
  type OperatorView,
} from '../../schemas/operators.ts';
import { parseJsonBody } from '../../server-kit/json-body.ts';
import { NotFoundError } from '../domain/domain-errors.ts';
import { HttpProblem } from '../http/http-problem.ts';
import { refusePrivateKeys } from '../http/middleware/refuse-private-keys.ts';
import type { ApiOperations } from '../http/openapi/operation.ts';
import { BAD_BODY, STORE_DOWN } from '../http/openapi/problems.ts';
import { publicOrigin } from '../payments/return-url.ts';
import type { ProxyServices } from '../services.ts';
import { actorOf } from './audit-trail.ts';
import { auditContextOf } from './dual-control.ts';
import { operatorGuards, type OperatorEnv } from './operator-auth.ts';
import { credentialView, operatorView } from './operator-views.ts';
import type { Acting } from './operators.ts';

const OPERATOR_ID = /^op_[A-Za-z0-9_-]{22}$/;
const CREDENTIAL_ID = /^cred_[A-Za-z0-9_-]{22}$/;

/** Who is acting, for the account service's audit. */
export const actingOf = (c: Context<OperatorEnv>, trustProxy: boolean): Acting => ({
  actor: actorOf(c.var.operator),
  context: auditContextOf(c, trustProxy),
});

/**
 * The admins' team: operators listed, invited, given another role, suspended and reactivated, removed;
 * anyone's sessions, devices and tokens listed and revoked (one's own without sessions:manage).
 */
export function teamRoutes({ config, store, operators }: ProxyServices): Hono<OperatorEnv> {
  const app = new Hono<OperatorEnv>();
  const guard = operatorGuards(teamOperations, operators.access);
  const { accounts } = operators;
  const idOf = (c: Context<OperatorEnv>) => {
    const id = c.req.param('operatorId') ?? '';
    if (!OPERATOR_ID.test(id)) throw new NotFoundError('No operator has this id');
    return id;
  };

  app.get('/api/operators', guard('GET /api/operators'), async (c) =>
    c.json({ operators: (await store.operators.listOperators()).map(operatorView) }),
  );

  app.post('/api/operators', guard('POST /api/operators'), refusePrivateKeys({ freeText: ['name'] }), async (c) => {
    const parsed = await parseJsonBody(c, inviteOperatorRequestSchema);
    if (!parsed.ok) throw new HttpProblem(400, parsed.error);
    const invited = await accounts.invite(parsed.data, actingOf(c, config.trustProxy));
    const origin = publicOrigin(config.publicUrl, c.req.url) ?? new URL(c.req.url).origin;
    c.header('Cache-Control', 'no-store');
    return c.json(
      {
        operator: operatorView(invited.operator),
        invitationUrl: `${origin}/operator/invite#${invited.token}`,
        expiresAt: new Date(invited.expiresAt).toISOString(),
      },
      201,
    );
  });

  app.patch('/api/operators/:operatorId', guard('PATCH /api/operators/{operatorId}'), async (c) => {
    const id = idOf(c);
    const parsed = await parseJsonBody(c, updateOperatorRequestSchema);
    if (!parsed.ok) throw new HttpProblem(400, parsed.error);
    const changed = await accounts.change(id, parsed.data, actingOf(c, config.trustProxy));
    return c.json(operatorView(changed));
  });

  app.delete('/api/operators/:operatorId', guard('DELETE /api/operators/{operatorId}'), async (c) => {
    const id = idOf(c);
    await accounts.remove(id, actingOf(c, config.trustProxy));
    return c.body(null, 204);
  });

  app.get('/api/operators/:operatorId/sessions', guard('GET /api/operators/{operatorId}/sessions'), async (c) => {
    const id = idOf(c);
    if (!(await store.operators.operatorById(id))) throw new NotFoundError('No operator has this id');
    const credentials = await store.operators.credentialsOf(id);
    return c.json({ credentials: credentials.map((each) => credentialView(each, c.var.operator.credential.id)) });
  });

  app.delete('/api/credentials/:credentialId', guard('DELETE /api/credentials/{credentialId}'), async (c) => {
    const id = c.req.param('credentialId');
    const credential = CREDENTIAL_ID.test(id) ? await store.operators.credentialById(id) : undefined;
    const { operator } = c.var;
    const own = credential?.operatorId === operator.operatorId;
    // Another person's credential is not even said to exist to someone who may not manage sessions.
    if (!credential || (!own && !operator.permissions.includes('sessions:manage'))) {
      if (credential) operators.metrics.refused('sessions:manage');
      throw new NotFoundError('No credential of yours has this id');
    }
    await accounts.revokeCredential(id, actingOf(c, config.trustProxy));
    return c.body(null, 204);
  });

  return app;
}

const operatorExample: OperatorView = {
  operatorId: 'op_Q2hKxV0t3mYb9sLr1fWz8A',
  name: 'Ada Lovelace',
  email: 'ada@shop.example',
  role: 'finance',
  state: 'active',
  createdAt: '2026-03-01T08:00:00.000Z',
  createdBy: 'op_b7Lw2QxR9sKd0mYt3VnE1g',
  updatedAt: '2026-03-01T08:00:00.000Z',
  sso: false,
};

const OPERATOR_ID_PARAM = {
  operatorId: { description: 'The operator’s id (`op_…`)', example: operatorExample.operatorId },
};

export const credentialExample = {
  credentialId: 'cred_f3K9xQm2LwV7bN1sTz0ReA',
  kind: 'device' as const,
  name: 'Kassa extension on Chromium',
  role: null,
  createdAt: '2026-03-02T09:14:05.000Z',
  lastUsedAt: '2026-03-02T11:40:00.000Z',
  expiresAt: '2026-04-01T09:14:05.000Z',
  idleExpiresAt: '2026-03-09T11:40:00.000Z',
  revokedAt: null,
  live: true,
  current: false,
  ip: '203.0.113.7',
  userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Chrome/138.0',
};

const CHANGE_ERRORS = {
  404: 'No operator has this id',
  409: 'The change would leave no active admin (make another admin first), or the operator changed meanwhile',
  503: STORE_DOWN,
};

export const teamOperations: ApiOperations = {
  'GET /api/operators': {
    operationId: 'listOperators',
    summary: 'The team',
    description: 'Every operator: name, e-mail, role and state (invited, active, suspended), oldest first.',
    audience: 'operator',
    access: { auth: 'operator', permission: 'operators:manage' },
    responses: {
      200: {
        description: 'The operators',
        json: { schema: operatorListSchema, example: { operators: [operatorExample] } },
      },
    },
    errors: { 503: STORE_DOWN },
  },
  'POST /api/operators': {
    operationId: 'inviteOperator',
    summary: 'Invite an operator',
    description:
      'Makes an invited account and a one-time link (72 hours) the person opens to register their passkey; the link is shown this once. Audited.',
    audience: 'operator',
    access: { auth: 'operator', permission: 'operators:manage' },
    request: {
      schema: inviteOperatorRequestSchema,
      example: { name: 'Ada Lovelace', email: 'ada@shop.example', role: 'finance' },
    },
    responses: {
      201: {
        description: 'Invited',
        json: {
          schema: invitedOperatorSchema,
          example: {
            operator: { ...operatorExample, state: 'invited' },
            invitationUrl: 'https://pay.shop.example/operator/invite#N2v9Kc4sXq0mLr7tBw3yZa8dFe1gHj5kPo6uIi2nMx0',
            expiresAt: '2026-03-04T08:00:00.000Z',
          },
        },
      },
    },
    errors: { 400: BAD_BODY, 409: 'An operator with this e-mail exists already', 503: STORE_DOWN },
  },
  'PATCH /api/operators/{operatorId}': {
    operationId: 'updateOperator',
    summary: 'Change an operator’s role, or suspend or reactivate them',
    description:
      'A lowered role caps their API tokens at once; a suspended operator’s sessions, devices and tokens stop working at once, on every instance. The last active admin cannot be demoted or suspended. Audited with the account before and after.',
    audience: 'operator',
    access: { auth: 'operator', permission: 'operators:manage' },
    params: OPERATOR_ID_PARAM,
    request: { schema: updateOperatorRequestSchema, example: { role: 'viewer' } },
    responses: {
      200: {
        description: 'The operator now',
        json: { schema: operatorViewSchema, example: { ...operatorExample, role: 'viewer' } },
      },
    },
    errors: { ...CHANGE_ERRORS, 400: BAD_BODY },
  },
  'DELETE /api/operators/{operatorId}': {
    operationId: 'removeOperator',
    summary: 'Remove an operator',
    description:
      'Deletes the account with its sessions, devices, tokens and passkeys; the audit keeps their name and role as they were. Never the last active admin.',
    audience: 'operator',
    access: { auth: 'operator', permission: 'operators:manage' },
    params: OPERATOR_ID_PARAM,
    responses: { 204: { description: 'Removed' } },
    errors: CHANGE_ERRORS,
  },
  'GET /api/operators/{operatorId}/sessions': {
    operationId: 'listOperatorSessions',
    summary: 'An operator’s sessions, devices and tokens',
    description: 'Every credential of theirs, newest first, revoked and expired ones included for a while.',
    audience: 'operator',
    access: { auth: 'operator', permission: 'sessions:manage' },
    params: OPERATOR_ID_PARAM,
    responses: {
      200: {
        description: 'Their credentials',
        json: { schema: credentialListSchema, example: { credentials: [credentialExample] } },
      },
    },
    errors: { 404: 'No operator has this id', 503: STORE_DOWN },
  },
  'DELETE /api/credentials/{credentialId}': {
    operationId: 'revokeCredential',
    summary: 'Revoke a session, device or token',
    description:
      'It stops working at once, on every instance. One’s own credentials need no permission; another person’s need sessions:manage (without it, theirs are answered 404, as unknown). Audited.',
    audience: 'operator',
    access: { auth: 'operator', permission: 'self' },
    params: {
      credentialId: { description: 'The credential’s id (`cred_…`)', example: credentialExample.credentialId },
    },
    responses: { 204: { description: 'Revoked (or revoked already)' } },
    errors: { 404: 'No credential of yours has this id', 503: STORE_DOWN },
  },
};
