/**
 * Another passkey for the signed-in person (the extension's and the page's "Add a passkey"): options
 * for the browser's prompt, then the new passkey. Listing and removing them are the account routes'
 * (operator-account-routes.ts).
 */
import { Hono, type Context } from 'hono';
import { addPasskeyOptionsRequestSchema, passkeyRegistrationSchema } from '../../../schemas/operator-signin.ts';
import { passkeyViewSchema } from '../../../schemas/operators.ts';
import type { ApiOperations } from '../../http/openapi/operation.ts';
import { BAD_BODY, STORE_DOWN } from '../../http/openapi/problems.ts';
import type { ProxyServices } from '../../services.ts';
import { operatorGuards, type OperatorEnv } from '../operator-auth.ts';
import { passkeyView } from '../operator-views.ts';
import { relyingParty } from './relying-party.ts';
import { signinExamples } from './signin-examples.ts';
import { jsonBody, NOT_MADE, optionsAnswer } from './signin-routes.ts';

export function passkeyRoutes(services: ProxyServices): Hono<OperatorEnv> {
  const { config, operators, signin } = services;
  const app = new Hono<OperatorEnv>();
  const guard = operatorGuards(passkeyOperations, operators.access);
  const rp = (c: Context) => relyingParty(config.publicUrl, c.req.url);

  app.post('/api/operator/passkeys/options', guard('POST /api/operator/passkeys/options'), async (c) => {
    const { passkeyName } = await jsonBody(c, addPasskeyOptionsRequestSchema);
    const party = rp(c);
    c.header('Cache-Control', 'no-store');
    return c.json({ options: await signin.enrolment.addOptions(party, c.var.operator, passkeyName) });
  });

  app.post('/api/operator/passkeys', guard('POST /api/operator/passkeys'), async (c) => {
    const { response } = await jsonBody(c, passkeyRegistrationSchema);
    const party = rp(c);
    const passkey = await signin.enrolment.finishAdd(c, party, c.var.operator, response);
    return c.json(passkeyView(passkey), 201);
  });

  return app;
}

const WRITE_REFUSED = 'A write with the session cookie lacks the X-Kassa-CSRF header or comes from another origin';

export const passkeyOperations: ApiOperations = {
  'POST /api/operator/passkeys/options': {
    operationId: 'startMyPasskey',
    summary: 'Start adding a passkey',
    description:
      'WebAuthn options for `navigator.credentials.create()` (a discoverable credential with user verification), the caller’s other passkeys excluded; kept 5 minutes, for one answer.',
    audience: 'operator',
    access: { auth: 'operator', permission: 'self' },
    request: { schema: addPasskeyOptionsRequestSchema, example: signinExamples.addPasskeyOptionsRequest },
    responses: {
      200: optionsAnswer(signinExamples.registrationOptions),
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
    description: 'The new passkey, made on options the caller asked for: it signs them in from now on. Audited.',
    audience: 'operator',
    access: { auth: 'operator', permission: 'self' },
    request: { schema: passkeyRegistrationSchema, example: signinExamples.registrationRequest },
    responses: { 201: { description: 'Added', json: { schema: passkeyViewSchema, example: signinExamples.passkey } } },
    errors: {
      400: NOT_MADE,
      403: WRITE_REFUSED,
      409: 'No address for passkeys: set KASSA_PUBLIC_URL',
      503: STORE_DOWN,
    },
  },
};
