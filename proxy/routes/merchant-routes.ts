import { Hono } from 'hono';
import { parseJsonBody } from '../../server-kit/json-body.ts';
import { createCheckoutRequestSchema, IDEMPOTENCY_KEY_PATTERN } from '../../schemas/proxy-api.ts';
import { HttpProblem } from '../http-problem.ts';
import { refusePrivateKeys } from '../middleware/refuse-private-keys.ts';
import { requireBearer } from '../middleware/require-bearer.ts';
import type { ProxyServices } from '../services.ts';

/** The merchant's server creates checkouts: what the customer will pay is decided here, not in the browser. */
export function merchantRoutes({ config, checkouts, tokens, logger }: ProxyServices): Hono {
  const app = new Hono();
  app.post(
    '/api/checkouts',
    requireBearer({ token: config.merchantKey, realm: 'KASSA_MERCHANT_KEY' }),
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
