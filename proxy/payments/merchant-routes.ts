import { Hono } from 'hono';
import { parseJsonBody } from '../../server-kit/json-body.ts';
import {
  createCheckoutRequestSchema,
  IDEMPOTENCY_KEY_PATTERN,
  merchantCheckoutSchema,
} from '../../schemas/proxy-api.ts';
import { HttpProblem } from '../http/http-problem.ts';
import { createCheckoutExample, merchantCheckoutExample } from '../http/openapi/examples.ts';
import type { ApiOperations } from '../http/openapi/operation.ts';
import { BAD_BODY, STORE_DOWN } from '../http/openapi/problems.ts';
import { refusePrivateKeys } from '../http/middleware/refuse-private-keys.ts';
import { merchantAuth } from './merchant-auth.ts';
import type { ProxyServices } from '../services.ts';

/** The merchant's server creates checkouts: what the customer will pay is decided here, not in the browser. */
export function merchantRoutes({ merchantKeys, checkouts, tokens, logger }: ProxyServices): Hono {
  const app = new Hono();
  app.post(
    '/api/checkouts',
    merchantAuth({ keys: merchantKeys, scope: 'checkouts:create' }),
    refusePrivateKeys({ freeText: ['metadata'] }),
    async (c) => {
      const parsed = await parseJsonBody(c, createCheckoutRequestSchema);
      if (!parsed.ok) throw new HttpProblem(400, parsed.error);
      const key = c.req.header('Idempotency-Key');
      if (key !== undefined && !IDEMPOTENCY_KEY_PATTERN.test(key))
        throw new HttpProblem(400, 'Idempotency-Key must be 8 to 255 characters of A-Z a-z 0-9 _ . : -');
      const { checkout, replayed } = await checkouts.create(parsed.data, key);
      if (replayed) c.header('Idempotent-Replayed', 'true');
      else
        logger.info('checkout created', {
          checkoutId: checkout.checkoutId,
          amount: checkout.amount,
          currencyCode: checkout.currencyCode,
        });
      return c.json(await checkouts.merchantView(checkout, await tokens.environment()), 201);
    },
  );
  return app;
}

export const merchantOperations: ApiOperations = {
  'POST /api/checkouts': {
    operationId: 'createCheckout',
    summary: 'Create a checkout',
    description:
      'The merchant’s server fixes what the customer will pay; the browser then pays the checkout by its id (createPayment). Send an Idempotency-Key to make retries safe.',
    audience: 'merchant',
    access: { auth: 'merchantKey' },
    idempotencyKey: 'optional',
    request: { schema: createCheckoutRequestSchema, example: createCheckoutExample },
    responses: {
      201: {
        description: 'The checkout, as the merchant sees it (also for a retry with the same Idempotency-Key)',
        json: { schema: merchantCheckoutSchema, example: merchantCheckoutExample },
        headers: { 'Idempotent-Replayed': { description: '`true` when this answers an earlier request again' } },
      },
    },
    errors: {
      400: `${BAD_BODY}; or the Idempotency-Key is malformed`,
      401: 'Send Authorization: Bearer <KASSA_MERCHANT_KEY or a merchant key>',
      403: 'The merchant key lacks the scope checkouts:create',
      409: 'The checkout of this Idempotency-Key is being created; try again shortly',
      422: 'This Idempotency-Key was already used for a different checkout',
      503: STORE_DOWN,
    },
  },
};
