/**
 * A person's own sign-in things, which everyone may always manage (design-37.md): where they are
 * signed in, their passkeys and their personal API tokens. The sign-in page and the extension call
 * these; so can a script with a personal token.
 */
import { Hono, type Context } from 'hono';
import type { RegistrationResponseJSON } from '@simplewebauthn/server';
import {
  addPasskeyOptionsRequestSchema,
  createdTokenSchema,
  createTokenRequestSchema,
  passkeyListSchema,
  passkeyOptionsSchema,
  passkeyRegistrationSchema,
  passkeySchema,
  sessionListSchema,
  tokenListSchema,
} from '../../../schemas/operator-signin.ts';
import { clientAddress } from '../../../server-kit/client-address.ts';
import { HttpProblem } from '../../http/http-problem.ts';
import type { ApiOperations } from '../../http/openapi/operation.ts';
import { BAD_BODY, STORE_DOWN } from '../../http/openapi/problems.ts';
import type { ProxyServices } from '../../services.ts';
import type { PasskeyRecord } from '../../state/operators.ts';
import { operatorGuards, type OperatorEnv } from '../operator-auth.ts';
import { can, roleAtMost } from '../permissions.ts';
import { credentialSummary, ownCredentials } from './own-credentials.ts';
import { relyingParty } from './relying-party.ts';
import { signinExamples } from './signin-examples.ts';
import { answering } from './signin-problems.ts';
import { jsonBody } from './signin-routes.ts';

const DAY = 86_400_000;
const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export const passkeyView = (passkey: PasskeyRecord) => ({
  credentialId: passkey.credentialId,
  name: passkey.name,
  createdAt: iso(passkey.createdAt)!,
  lastUsedAt: iso(passkey.lastUsedAt),
  deviceType: passkey.deviceType,
  backedUp: passkey.backedUp,
});

export function ownAccountRoutes(services: ProxyServices): Hono<OperatorEnv> {
  const { config, operators, signin, store } = services;
  const app = new Hono<OperatorEnv>();
  const guard = operatorGuards(ownAccountOperations, operators.access);
  const rp = (c: Context) => answering(async () => relyingParty(config.publicUrl, c.req.url));

  app.get('/api/operator/sessions', guard('GET /api/operator/sessions'), async (c) => {
    c.header('Cache-Control', 'no-store');
    return c.json({ sessions: (await ownCredentials(store.operators, c.var.operator)).sessions });
  });

  app.get('/api/operator/tokens', guard('GET /api/operator/tokens'), async (c) => {
    c.header('Cache-Control', 'no-store');
    return c.json({ tokens: (await ownCredentials(store.operators, c.var.operator)).tokens });
  });

  app.post('/api/operator/tokens', guard('POST /api/operator/tokens'), async (c) => {
    const me = c.var.operator;
    const request = await jsonBody(c, createTokenRequestSchema);
    if (!roleAtMost(request.role, me.role))
      throw new HttpProblem(403, `A token’s role can be at most yours (${me.role})`);
    const owner = await store.operators.operatorById(me.operatorId);
    if (!owner) throw new HttpProblem(404, 'Your account is gone');
    // A token made with another token ends no later than that one, so tokens cannot keep themselves alive.
    const days =
      me.credential.kind === 'api'
        ? Math.min(request.expiresInDays, Math.floor((me.credential.expiresAt - Date.now()) / DAY))
        : request.expiresInDays;
    if (days < 1) throw new HttpProblem(403, 'The token you made this request with expires within a day');
    const { secret, credential } = await operators.credentials.issue({
      operator: owner,
      kind: 'api',
      name: request.name,
      role: request.role,
      expiresInDays: days,
      ip: clientAddress(c, config.trustProxy),
      userAgent: c.req.header('User-Agent') ?? null,
    });
    await signin.events.record(c, {
      actor: { operatorId: me.operatorId, name: me.name, role: me.role, via: me.credential.kind },
      action: 'token.created',
      target: { type: 'credential', id: credential.credentialId },
      after: { name: credential.name, role: credential.role, expiresAt: iso(credential.expiresAt) },
    });
    c.header('Cache-Control', 'no-store');
    return c.json({ token: secret, credential: credentialSummary(credential, me.credential.id) }, 201);
  });

  app.delete('/api/credentials/:credentialId', guard('DELETE /api/credentials/{credentialId}'), async (c) => {
    const me = c.var.operator;
    const credential = await store.operators.credentialById(c.req.param('credentialId'));
    // Someone else's credential is, for a caller who may not manage sessions, as if it did not exist.
    if (!credential || (credential.operatorId !== me.operatorId && !can(me.role, 'sessions:manage')))
      throw new HttpProblem(404, 'No credential of yours has this id');
    const revoked =
      credential.credentialId === me.credential.id && me.credential.kind === 'web'
        ? await signin.sessions.end(c)
        : await store.operators.revokeCredential(credential.credentialId, Date.now());
    if (revoked)
      await signin.events.record(c, {
        actor: { operatorId: me.operatorId, name: me.name, role: me.role, via: me.credential.kind },
        action: credential.kind === 'api' ? 'token.revoked' : 'session.revoked',
        target: { type: 'credential', id: credential.credentialId },
        before: { owner: credential.operatorId, kind: credential.kind, name: credential.name },
      });
    return c.body(null, 204);
  });

  app.get('/api/operator/passkeys', guard('GET /api/operator/passkeys'), async (c) => {
    c.header('Cache-Control', 'no-store');
    return c.json({ passkeys: (await store.operators.passkeysOf(c.var.operator.operatorId)).map(passkeyView) });
  });

  app.post('/api/operator/passkeys/options', guard('POST /api/operator/passkeys/options'), async (c) => {
    const { passkeyName } = await jsonBody(c, addPasskeyOptionsRequestSchema);
    const party = await rp(c);
    c.header('Cache-Control', 'no-store');
    return c.json({ options: await signin.enrolment.addOptions(party, c.var.operator, passkeyName) });
  });

  app.post('/api/operator/passkeys', guard('POST /api/operator/passkeys'), async (c) => {
    const { response } = await jsonBody(c, passkeyRegistrationSchema);
    const party = await rp(c);
    const passkey = await answering(() =>
      signin.enrolment.finishAdd(c, party, c.var.operator, response as RegistrationResponseJSON),
    );
    return c.json(passkeyView(passkey), 201);
  });

  app.delete(
    '/api/operator/passkeys/:credentialId',
    guard('DELETE /api/operator/passkeys/{credentialId}'),
    async (c) => {
      await answering(() => signin.enrolment.remove(c, c.var.operator, c.req.param('credentialId')));
      return c.body(null, 204);
    },
  );

  return app;
}

const WRITE_REFUSED = 'A write with the session cookie lacks the X-Kassa-CSRF header or comes from another origin';
const SELF = { auth: 'operator', permission: 'self' } as const;

export const ownAccountOperations: ApiOperations = {
  'GET /api/operator/sessions': {
    operationId: 'listMySessions',
    summary: 'Where I am signed in',
    description: 'The caller’s live browser sessions and signed-in extensions, newest first; `current` marks this one.',
    audience: 'operator',
    access: SELF,
    responses: {
      200: { description: 'The sessions', json: { schema: sessionListSchema, example: signinExamples.sessions } },
    },
    errors: { 503: STORE_DOWN },
  },
  'GET /api/operator/tokens': {
    operationId: 'listMyTokens',
    summary: 'My personal API tokens',
    description: 'The caller’s live personal API tokens, newest first (never their secrets).',
    audience: 'operator',
    access: SELF,
    responses: {
      200: { description: 'The tokens', json: { schema: tokenListSchema, example: signinExamples.tokens } },
    },
    errors: { 503: STORE_DOWN },
  },
  'POST /api/operator/tokens': {
    operationId: 'createMyToken',
    summary: 'Create a personal API token',
    description:
      'A token (`kassa_pat_…`) that acts as the caller with a role no higher than theirs, until it expires (1 to 365 days, 90 by default) or is revoked. The secret is in this answer only; Kassa keeps its hash. A token made with another token expires no later than that one.',
    audience: 'operator',
    access: SELF,
    request: { schema: createTokenRequestSchema, example: signinExamples.createTokenRequest },
    responses: {
      201: {
        description: 'The token, shown once',
        json: { schema: createdTokenSchema, example: signinExamples.createdToken },
      },
    },
    errors: {
      400: BAD_BODY,
      403: `${WRITE_REFUSED}; or the role asked for is above the caller’s`,
      404: 'The caller’s account was removed meanwhile',
      503: STORE_DOWN,
    },
  },
  'DELETE /api/credentials/{credentialId}': {
    operationId: 'revokeCredential',
    summary: 'Sign a session out, or revoke a token',
    description:
      'Revokes one of the caller’s sessions, signed-in extensions or tokens (an admin with sessions:manage: anyone’s). It stops working at once, on every instance; revoking the session the request is made with signs this browser out.',
    audience: 'operator',
    access: SELF,
    params: { credentialId: 'The credential’s id (`cred_…`), from listMySessions or listMyTokens' },
    responses: { 204: { description: 'Revoked' } },
    errors: { 403: WRITE_REFUSED, 404: 'No credential of the caller’s has this id', 503: STORE_DOWN },
  },
  'GET /api/operator/passkeys': {
    operationId: 'listMyPasskeys',
    summary: 'My passkeys',
    description: 'The caller’s passkeys: their names, when they were added and last used, whether they are synced.',
    audience: 'operator',
    access: SELF,
    responses: {
      200: { description: 'The passkeys', json: { schema: passkeyListSchema, example: signinExamples.passkeys } },
    },
    errors: { 503: STORE_DOWN },
  },
  'POST /api/operator/passkeys/options': {
    operationId: 'startMyPasskey',
    summary: 'Start adding a passkey',
    description: 'WebAuthn options for `navigator.credentials.create()`, the caller’s other passkeys excluded.',
    audience: 'operator',
    access: SELF,
    request: { schema: addPasskeyOptionsRequestSchema, example: signinExamples.addPasskeyOptionsRequest },
    responses: {
      200: {
        description: 'The options',
        json: { schema: passkeyOptionsSchema, example: signinExamples.registrationOptions },
      },
    },
    errors: {
      400: BAD_BODY,
      403: WRITE_REFUSED,
      409: 'No address for passkeys: set KASSA_PUBLIC_URL',
      503: STORE_DOWN,
    },
  },
  'POST /api/operator/passkeys': {
    operationId: 'addMyPasskey',
    summary: 'Add a passkey',
    description: 'The new passkey, made on options the caller asked for: it signs them in from now on.',
    audience: 'operator',
    access: SELF,
    request: { schema: passkeyRegistrationSchema, example: signinExamples.registrationRequest },
    responses: {
      201: { description: 'Added', json: { schema: passkeySchema, example: signinExamples.passkeys.passkeys[0] } },
    },
    errors: {
      400: 'The body breaks the schema, or the passkey was not made (`details.problem: not-made`): start again',
      403: WRITE_REFUSED,
      409: 'No address for passkeys: set KASSA_PUBLIC_URL',
      503: STORE_DOWN,
    },
  },
  'DELETE /api/operator/passkeys/{credentialId}': {
    operationId: 'removeMyPasskey',
    summary: 'Remove a passkey',
    description:
      'Removes one of the caller’s passkeys; never the last way they have to sign in (their only passkey, unless they sign in with the company’s provider).',
    audience: 'operator',
    access: SELF,
    params: { credentialId: 'The passkey’s WebAuthn credential id, from listMyPasskeys' },
    responses: { 204: { description: 'Removed' } },
    errors: {
      403: WRITE_REFUSED,
      404: 'No passkey of the caller’s has this id',
      409: 'It is the caller’s only way to sign in (`details.problem: last-passkey`)',
      503: STORE_DOWN,
    },
  },
};
