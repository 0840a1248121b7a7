/**
 * The sign-in page's own calls: passkey sign-in, a link's first passkey, signing out. Before anyone
 * is signed in there is no CSRF token, so these writes are taken only from this proxy's own pages
 * (their Origin); after, signing out is a write like any other (the session's CSRF token).
 */
import { Hono, type Context } from 'hono';
import type { z } from 'zod';
import { createMiddleware } from 'hono/factory';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { errorSchema } from '../../../schemas/proxy-api.ts';
import {
  linkLookupRequestSchema,
  linkLookupSchema,
  passkeyOptionsSchema,
  passkeyRegistrationSchema,
  registrationOptionsRequestSchema,
  signedInSchema,
  signinRequestSchema,
} from '../../../schemas/operator-signin.ts';
import { parseJsonBody } from '../../../server-kit/json-body.ts';
import { HttpProblem } from '../../http/http-problem.ts';
import { NotAllowedError } from '../../domain/domain-errors.ts';
import { clientRateLimit } from '../../http/middleware/client-rate-limit.ts';
import type { ApiOperations } from '../../http/openapi/operation.ts';
import { BAD_BODY, RATE_LIMITED, STORE_DOWN } from '../../http/openapi/problems.ts';
import { publicOrigin } from '../../payments/return-url.ts';
import type { ProxyServices } from '../../services.ts';
import { actorOf } from '../audit-trail.ts';
import { operatorGuards, type OperatorEnv } from '../operator-auth.ts';
import { relyingParty } from './relying-party.ts';
import { signinExamples } from './signin-examples.ts';

/**
 * Takes a write only from this proxy's own pages: the browser's Origin must be the proxy's. Sign-in's
 * writes come before any session (so before any CSRF token); a page elsewhere cannot pass this.
 */
export const ownOrigin = (publicUrl: string | null) =>
  createMiddleware(async function ownOrigin(c, next) {
    const own = publicOrigin(publicUrl, c.req.url) ?? new URL(c.req.url).origin;
    if (c.req.header('Origin') !== own)
      throw new NotAllowedError('Sign-in takes requests from this Kassa’s own sign-in page only (its Origin)');
    await next();
  });

export async function jsonBody<S extends z.ZodType>(c: Context, schema: S): Promise<z.output<S>> {
  const parsed = await parseJsonBody(c, schema);
  if (!parsed.ok) throw new HttpProblem(400, parsed.error);
  return parsed.data;
}

export function signinRoutes(services: ProxyServices): Hono<OperatorEnv> {
  const { config, signin, operators } = services;
  const app = new Hono<OperatorEnv>();
  const own = ownOrigin(config.publicUrl);
  // Each of these writes something (a ceremony) before anyone is known: as many as payments may be started.
  const starts = clientRateLimit({ name: 'signin', limit: config.createRateLimit, trustProxy: config.trustProxy });
  const guard = operatorGuards(signinOperations, operators.access);
  const rp = (c: Context) => relyingParty(config.publicUrl, c.req.url);
  // A challenge is for one browser: never kept by a cache in between.
  app.post('/operator/signin/options', own, starts, async (c) => {
    c.header('Cache-Control', 'no-store');
    return c.json({ options: await signin.passkeys.options(rp(c)) });
  });

  app.post('/operator/signin', own, async (c) => {
    const { response } = await jsonBody(c, signinRequestSchema);
    const party = rp(c);
    // The schema bounds every field; the extension outputs it leaves open are WebAuthn's to read.
    return c.json(await signin.passkeys.signIn(c, party, response as AuthenticationResponseJSON));
  });

  app.post('/operator/link', own, starts, async (c) => {
    const request = await jsonBody(c, linkLookupRequestSchema);
    c.header('Cache-Control', 'no-store');
    return c.json(await signin.enrolment.lookup(request.link, request.token));
  });

  app.post('/operator/passkeys/options', own, starts, async (c) => {
    const request = await jsonBody(c, registrationOptionsRequestSchema);
    const party = rp(c);
    c.header('Cache-Control', 'no-store');
    return c.json({ options: await signin.enrolment.linkOptions(party, request) });
  });

  app.post('/operator/passkeys', own, async (c) => {
    const { response } = await jsonBody(c, passkeyRegistrationSchema);
    const party = rp(c);
    return c.json(await signin.enrolment.finishLink(c, party, response as RegistrationResponseJSON));
  });

  app.post('/operator/signout', guard('POST /operator/signout'), async (c) => {
    const { operator } = c.var;
    const ended =
      operator.credential.kind === 'web'
        ? await signin.sessions.end(c)
        : await services.store.operators.revokeCredential(operator.credential.id, Date.now());
    if (ended)
      await signin.events.record(c, actorOf(operator), 'signout', {
        target: { type: 'credential', id: operator.credential.id },
      });
    return c.body(null, 204);
  });

  return app;
}

/** A ceremony's options, as the two routes that start one (a sign-in, a passkey) answer them. */
export const optionsAnswer = (example: object) => ({
  description: 'The options',
  json: { schema: passkeyOptionsSchema, example },
});
export const NOT_MADE =
  'The body breaks the schema, or the passkey was not made (`details.problem: not-made`): start again';

const BEFORE_SESSION =
  'nobody is signed in yet: it answers only this Kassa’s own sign-in page (its Origin), and gives nothing without a passkey or a link’s one-time token.';
const OWN_ORIGIN = 'The request does not come from this Kassa’s own sign-in page (its Origin)';
const NO_ADDRESS =
  'Passkeys need the address operators open Kassa at: KASSA_PUBLIC_URL is not set and the request is not on loopback';

export const signinOperations: ApiOperations = {
  'POST /operator/signin/options': {
    operationId: 'startPasskeySignin',
    summary: 'Start a passkey sign-in',
    description:
      'A WebAuthn challenge for `navigator.credentials.get()` (any passkey of this site, user verification required). It is kept for 5 minutes and answers one attempt.',
    audience: 'operator',
    access: { auth: 'public', because: BEFORE_SESSION },
    responses: {
      200: optionsAnswer(signinExamples.signinOptions),
    },
    errors: { 403: OWN_ORIGIN, 409: NO_ADDRESS, 429: RATE_LIMITED, 503: STORE_DOWN },
  },
  'POST /operator/signin': {
    operationId: 'finishPasskeySignin',
    summary: 'Sign in with a passkey',
    description:
      'The passkey’s answer to the challenge. Signed in: the `__Host-kassa_session` cookie (Secure, HttpOnly, SameSite=Strict, Path=/; 30 minutes idle, 12 hours at most) and the CSRF token to send as `X-Kassa-CSRF` on every write. Refused, for whatever reason (unknown passkey, wrong signature, an answer used before, a suspended account), always with the same words. Failed sign-ins are limited per account and per client address (429).',
    audience: 'operator',
    access: { auth: 'public', because: BEFORE_SESSION },
    request: { schema: signinRequestSchema, example: signinExamples.signinRequest },
    responses: {
      200: {
        description: 'Signed in',
        json: { schema: signedInSchema, example: signinExamples.signedIn },
        headers: {
          'Set-Cookie': {
            description: 'The session: `__Host-kassa_session=…; Secure; HttpOnly; SameSite=Strict; Path=/`',
            required: true,
          },
        },
      },
      401: {
        description: 'The passkey did not sign anyone in (the same words whatever was wrong)',
        json: { schema: errorSchema, example: { error: 'The passkey did not sign you in' } },
      },
    },
    errors: {
      400: BAD_BODY,
      403: OWN_ORIGIN,
      409: NO_ADDRESS,
      429: 'Too many failed sign-ins of this account or from this address lately; try again after Retry-After seconds',
      503: STORE_DOWN,
    },
  },
  'POST /operator/link': {
    operationId: 'lookUpSigninLink',
    summary: 'Whom a link is for',
    description:
      'An invitation (`/operator/invite#<token>`) or the first admin’s setup link (`/operator/setup#<token>`), before its person makes a passkey: who is invited, with which role, until when. The link is not used.',
    audience: 'operator',
    access: { auth: 'public', because: BEFORE_SESSION },
    request: { schema: linkLookupRequestSchema, example: signinExamples.linkLookupRequest },
    responses: {
      200: { description: 'The link', json: { schema: linkLookupSchema, example: signinExamples.linkLookup } },
    },
    errors: {
      400: BAD_BODY,
      403: OWN_ORIGIN,
      404: 'The link was used, has expired, or is not one Kassa gave (`details.problem: link`)',
      409: 'A setup link, and this Kassa has an admin already (`details.problem: admin-exists`)',
      429: RATE_LIMITED,
      503: STORE_DOWN,
    },
  },
  'POST /operator/passkeys/options': {
    operationId: 'startLinkPasskey',
    summary: 'Start making a link’s first passkey',
    description:
      'WebAuthn options for `navigator.credentials.create()`: a discoverable credential with user verification, for the invited person, or for the first admin (who gives their name and e-mail). The link stays unused until the passkey is made.',
    audience: 'operator',
    access: { auth: 'public', because: BEFORE_SESSION },
    request: { schema: registrationOptionsRequestSchema, example: signinExamples.registrationOptionsRequest },
    responses: {
      200: optionsAnswer(signinExamples.registrationOptions),
    },
    errors: {
      400: BAD_BODY,
      403: OWN_ORIGIN,
      404: 'The link was used, has expired, or is not one Kassa gave (`details.problem: link`)',
      409: 'This Kassa has an admin already, or the e-mail is taken (`details.problem`), or no address for passkeys',
      429: RATE_LIMITED,
      503: STORE_DOWN,
    },
  },
  'POST /operator/passkeys': {
    operationId: 'finishLinkPasskey',
    summary: 'Make a link’s first passkey, and sign in',
    description:
      'The new passkey: stored, the link used, the invited account activated (or the first admin’s made), and its person signed in as `finishPasskeySignin` signs in.',
    audience: 'operator',
    access: { auth: 'public', because: BEFORE_SESSION },
    request: { schema: passkeyRegistrationSchema, example: signinExamples.registrationRequest },
    responses: {
      200: {
        description: 'Made, and signed in',
        json: { schema: signedInSchema, example: signinExamples.signedIn },
        headers: { 'Set-Cookie': { description: 'The session cookie', required: true } },
      },
    },
    errors: {
      400: NOT_MADE,
      403: OWN_ORIGIN,
      404: 'The link was used meanwhile or has expired (`details.problem: link`)',
      409: 'This Kassa has an admin already, or the e-mail is taken (`details.problem`), or no address for passkeys',
      503: STORE_DOWN,
    },
  },
  'POST /operator/signout': {
    operationId: 'signOut',
    summary: 'Sign out',
    description:
      'Ends the session the request is made with (its cookie is cleared), or revokes the bearer credential it carries.',
    audience: 'operator',
    access: { auth: 'operator', permission: 'self' },
    responses: { 204: { description: 'Signed out' } },
    errors: {
      403: 'A write with the session cookie lacks the X-Kassa-CSRF header or comes from another origin',
      503: STORE_DOWN,
    },
  },
};
