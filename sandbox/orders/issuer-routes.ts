import { Hono } from 'hono';
import { orderFaultRequestSchema } from '../../schemas/sandbox.ts';
import { parseJsonBody } from '../../server-kit/json-body.ts';
import type { Issuer } from './issuer.ts';

/**
 * The issuer's controls (`/_sandbox/orders`), to stage what a real issuer does now and then: fail the
 * next orders, hold them Processing (a late mint) until released, or mint an order whatever its
 * status (a stray mint of an order it failed).
 */
export function issuerControl(issuer: Issuer): Hono {
  const app = new Hono();

  app.get('/faults', (c) => c.json(issuer.describe()));

  app.post('/faults', async (c) => {
    const parsed = await parseJsonBody(c, orderFaultRequestSchema);
    if (!parsed.ok) return c.json({ error: parsed.error }, 400);
    issuer.addFault(parsed.data);
    return c.json(issuer.describe(), 201);
  });

  app.delete('/faults', (c) => {
    issuer.clearFaults();
    return c.json(issuer.describe());
  });

  app.post('/:orderId/release', (c) => {
    if (!issuer.release(c.req.param('orderId'))) return c.json({ error: 'No held order has this id' }, 404);
    return c.json(issuer.describe());
  });

  app.post('/:orderId/mint', async (c) => {
    const minted = await issuer.mintLate(c.req.param('orderId'));
    if (minted === undefined) return c.json({ error: 'No order has this id' }, 404);
    if (!minted) return c.json({ error: 'The order cannot be minted: its chain or coin is not served' }, 409);
    return c.json({ orderId: c.req.param('orderId'), minted });
  });

  return app;
}
