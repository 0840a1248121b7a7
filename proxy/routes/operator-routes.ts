import { Hono } from 'hono';
import { parseJsonBody } from '../../server-kit/json-body.ts';
import { describeZodError } from '../../lib/zod-message.ts';
import { createOrderRequestSchema, orderStatusSchema, updateOrderRequestSchema } from '../../schemas/orders.ts';
import { bridgeNetworkSchema, type Health, type PaymentStatusView } from '../../schemas/proxy-api.ts';
import { HttpProblem } from '../http-problem.ts';
import { refusePrivateKeys } from '../middleware/refuse-private-keys.ts';
import { requireBearer } from '../middleware/require-bearer.ts';
import type { ProxyServices } from '../services.ts';
import { upstreamProblem } from '../upstream-problem.ts';
import { stateStream } from './sse.ts';
import { KASSA_VERSION } from '../version.ts';

const started = Date.now();

/** What tells one change of any payment from the next, for the operator's stream. */
const changeKey = (view: PaymentStatusView) =>
  `${view.transactionId}.${view.status}.${view.networkStatus ?? ''}.${view.updatedAt}`;

/**
 * The merchant's operators (the extension): payments with live status, the order service, chains and
 * health. Every route needs KASSA_OPERATOR_TOKEN; none is reachable with the merchant key alone.
 */
export function operatorRoutes(services: ProxyServices): Hono {
  const { config, store, orders, chains, coordination, health, sseHeartbeatMs, logger, metrics } = services;
  const app = new Hono();
  const operator = requireBearer({ token: config.operatorToken, realm: 'KASSA_OPERATOR_TOKEN' });
  const orderCall = async <T>(call: () => Promise<T>): Promise<T> => {
    try {
      return await call();
    } catch (error) {
      throw upstreamProblem(error, 'client');
    }
  };

  app.get('/api/payments/events', operator, (c) =>
    stateStream<PaymentStatusView>(c, {
      event: 'status',
      listen: (send) => coordination.bus.subscribeAll(send),
      current: async () => undefined,
      key: changeKey,
      heartbeatMs: sseHeartbeatMs,
      open: metrics.sseConnections,
      logger,
    }),
  );

  app.get('/api/orders', operator, async (c) => {
    const filter = c.req.query('filterStatus');
    const status = filter ? orderStatusSchema('filterStatus').safeParse(filter) : undefined;
    if (status && !status.success) throw new HttpProblem(400, describeZodError(status.error));
    return c.json(await orderCall(() => orders.list(status?.data)));
  });

  app.post('/api/orders', operator, refusePrivateKeys({ freeText: ['customerName'] }), async (c) => {
    const parsed = await parseJsonBody(c, createOrderRequestSchema);
    if (!parsed.ok) throw new HttpProblem(400, parsed.error);
    return c.json(await orderCall(() => orders.create(parsed.data)), 201);
  });

  app.get('/api/orders/:orderId', operator, async (c) =>
    c.json(await orderCall(() => orders.get(c.req.param('orderId')))),
  );

  app.put('/api/orders/:orderId', operator, refusePrivateKeys({ freeText: ['customerName'] }), async (c) => {
    const parsed = await parseJsonBody(c, updateOrderRequestSchema);
    if (!parsed.ok) throw new HttpProblem(400, parsed.error);
    return c.json(await orderCall(() => orders.update(c.req.param('orderId'), parsed.data)));
  });

  app.delete('/api/orders/:orderId', operator, refusePrivateKeys(), async (c) =>
    c.json(await orderCall(() => orders.delete(c.req.param('orderId')))),
  );

  app.get('/api/chains', operator, async (c) => {
    const network = bridgeNetworkSchema.safeParse(c.req.query('network') ?? 'test');
    if (!network.success) throw new HttpProblem(400, describeZodError(network.error));
    return c.json(await chains.list(network.data));
  });

  app.get('/api/health', operator, async (c) => {
    const storeOk = await store.ping().then(
      () => true,
      () => false,
    );
    const body: Health = {
      status: storeOk && !health.degraded ? 'ok' : 'degraded',
      version: KASSA_VERSION,
      uptimeSeconds: Math.round((Date.now() - started) / 1000),
      store: storeOk ? 'ok' : 'unavailable',
      payments: { ...health.pay },
      orders: { ...health.orders },
      reforge: { ...health.reforge },
      budgets: await Promise.all([coordination.tokenBudget.used(), coordination.paymentBudget.used()]).then(
        ([tokens, payments]) => ({
          tokenRequests: { used: tokens, limit: coordination.tokenBudget.limit },
          paymentRequests: { used: payments, limit: coordination.paymentBudget.limit },
        }),
        () => null,
      ),
    };
    c.header('Cache-Control', 'no-store');
    return c.json(body);
  });

  return app;
}
