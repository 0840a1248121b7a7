import { Hono } from 'hono';
import {
  merchantKeyListSchema,
  merchantKeySchema,
  merchantKeyWithSecretSchema,
  newMerchantKeySchema,
  rollMerchantKeySchema,
  type MerchantKeyView,
} from '../../schemas/merchant-keys.ts';
import { jsonRequest } from '../http/json-request.ts';
import { refusePrivateKeys } from '../http/middleware/refuse-private-keys.ts';
import type { ApiOperations } from '../http/openapi/operation.ts';
import { BAD_BODY, OPERATOR_ERRORS } from '../http/openapi/problems.ts';
import { audited } from '../operator/dual-control.ts';
import { operatorGuards, type OperatorEnv } from '../operator/operator-auth.ts';
import type { ProxyServices } from '../services.ts';

/** The merchant's API keys: admins make, roll and revoke them; every change is audited. */
export function merchantKeyRoutes({ merchantKeys, operators }: ProxyServices): Hono<OperatorEnv> {
  const app = new Hono<OperatorEnv>();
  const guard = operatorGuards(merchantKeyOperations, operators.access);
  const target = (id: string) => ({ type: 'merchant_key', id });

  app.get('/api/merchant-keys', guard('GET /api/merchant-keys'), async (c) =>
    c.json({ keys: await merchantKeys.list() }),
  );

  app.post('/api/merchant-keys', guard('POST /api/merchant-keys'), refusePrivateKeys(), async (c) => {
    const created = await merchantKeys.create(await jsonRequest(c, newMerchantKeySchema));
    await audited(c, operators, 'merchant_key.created', { target: target(created.key.id), after: created.key });
    return c.json(created, 201);
  });

  app.post(
    '/api/merchant-keys/:keyId/roll',
    guard('POST /api/merchant-keys/{keyId}/roll'),
    refusePrivateKeys(),
    async (c) => {
      const { expiresInSeconds } = await jsonRequest(c, rollMerchantKeySchema);
      const { previous, ...rolled } = await merchantKeys.roll(c.req.param('keyId'), expiresInSeconds);
      await audited(c, operators, 'merchant_key.rolled', {
        target: target(previous.id),
        after: { previous, key: rolled.key },
      });
      return c.json(rolled, 201);
    },
  );

  app.delete('/api/merchant-keys/:keyId', guard('DELETE /api/merchant-keys/{keyId}'), async (c) => {
    const revoked = await merchantKeys.revoke(c.req.param('keyId'));
    await audited(c, operators, 'merchant_key.revoked', { target: target(revoked.id), after: revoked });
    return c.json(revoked);
  });
  return app;
}

const keyExample: MerchantKeyView = {
  id: 'mkey_c2hvcC1iYWNrZW5kLWtleQ',
  name: 'Shop backend',
  scopes: ['checkouts:create', 'checkouts:read'],
  hint: 'kassa_mk_3fQa…',
  createdAt: '2026-11-23T17:00:00.000Z',
  expiresAt: null,
  lastUsedAt: '2026-11-23T18:00:00.000Z',
  revokedAt: null,
  state: 'active',
  rolledFrom: null,
};
const SECRET_EXAMPLE = 'kassa_mk_3fQaZXhhbXBsZS1tZXJjaGFudC1rZXktZG8tbm90LXVzZQ';
const KEY = { keyId: { description: 'The key’s id, from listMerchantKeys', example: keyExample.id } };
const MANAGE = { auth: 'operator', permission: 'merchant_keys:manage' } as const;
const NOT_KEPT = 'The key is expired or revoked already';

export const merchantKeyOperations: ApiOperations = {
  'GET /api/merchant-keys': {
    operationId: 'listMerchantKeys',
    summary: 'List the merchant keys',
    description:
      'The keys the merchant’s servers call the merchant routes with (KASSA_MERCHANT_KEY aside), newest first: name, scopes, expiry, last use (to the minute) and state. Never a secret.',
    audience: 'operator',
    access: MANAGE,
    responses: {
      200: { description: 'The keys', json: { schema: merchantKeyListSchema, example: { keys: [keyExample] } } },
    },
    errors: { ...OPERATOR_ERRORS, 403: 'The role lacks merchant_keys:manage' },
  },
  'POST /api/merchant-keys': {
    operationId: 'createMerchantKey',
    summary: 'Make a merchant key',
    description:
      'A named key with scopes (`checkouts:create`, `checkouts:read`) and an optional expiry in days. Its secret (`kassa_mk_…`) is in this answer only; the proxy keeps its SHA-256.',
    audience: 'operator',
    access: MANAGE,
    request: {
      schema: newMerchantKeySchema,
      example: { name: 'Shop backend', scopes: ['checkouts:create', 'checkouts:read'], expiresInDays: 365 },
    },
    responses: {
      201: {
        description: 'Made, with its secret',
        json: { schema: merchantKeyWithSecretSchema, example: { key: keyExample, secret: SECRET_EXAMPLE } },
      },
    },
    errors: { ...OPERATOR_ERRORS, 400: BAD_BODY, 403: 'The role lacks merchant_keys:manage', 409: NOT_KEPT },
  },
  'POST /api/merchant-keys/{keyId}/roll': {
    operationId: 'rollMerchantKey',
    summary: 'Roll a merchant key',
    description:
      'A new key with the same name and scopes (its secret in this answer only); the old one keeps working for `expiresInSeconds` (24 hours by default, 30 days at most; 0 ends it now), so the merchant’s servers move over with no failed request.',
    audience: 'operator',
    access: MANAGE,
    params: KEY,
    request: { schema: rollMerchantKeySchema, example: { expiresInSeconds: 86_400 } },
    responses: {
      201: {
        description: 'The new key, with its secret',
        json: {
          schema: merchantKeyWithSecretSchema,
          example: {
            key: { ...keyExample, id: 'mkey_bmV3LXNob3Ata2V5LWlk', rolledFrom: keyExample.id },
            secret: SECRET_EXAMPLE,
          },
        },
      },
    },
    errors: {
      ...OPERATOR_ERRORS,
      400: BAD_BODY,
      403: 'The role lacks merchant_keys:manage',
      404: 'Unknown merchant key',
      409: NOT_KEPT,
    },
  },
  'DELETE /api/merchant-keys/{keyId}': {
    operationId: 'revokeMerchantKey',
    summary: 'Revoke a merchant key',
    description:
      'The key opens nothing from the next request on, on every instance sharing the store (each request looks its key up). The record stays, `revoked`.',
    audience: 'operator',
    access: MANAGE,
    params: KEY,
    responses: {
      200: {
        description: 'Revoked',
        json: {
          schema: merchantKeySchema,
          example: { ...keyExample, state: 'revoked', revokedAt: '2026-11-24T09:00:00.000Z' },
        },
      },
    },
    errors: {
      ...OPERATOR_ERRORS,
      403: 'The role lacks merchant_keys:manage',
      404: 'Unknown merchant key',
      409: NOT_KEPT,
    },
  },
};
