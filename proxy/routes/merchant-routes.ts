import { Hono } from 'hono';
import { parseJsonBody } from '../../server-kit/json-body.ts';
import { createCheckoutRequestSchema } from '../../schemas/proxy-api.ts';
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
    refusePrivateKeys(),
    async (c) => {
      const parsed = await parseJsonBody(c, createCheckoutRequestSchema);
      if (!parsed.ok) throw new HttpProblem(400, parsed.error);
      const checkout = await checkouts.create(parsed.data);
      logger.info('checkout created', {
        checkoutId: checkout.checkoutId,
        amount: checkout.amount,
        currencyCode: checkout.currencyCode,
      });
      return c.json(await checkouts.view(checkout, await tokens.environment()), 201);
    },
  );
  return app;
}
