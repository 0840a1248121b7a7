import { Hono, type Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { isRecord, parseJsonBody, readJsonBody } from '../../server-kit/json-body.ts';
import { describeZodError } from '../../lib/zod-message.ts';
import { createOrderRequestSchema, orderStatusSchema, updateOrderRequestSchema } from '../../schemas/orders.ts';
import type { Metrics } from '../metrics.ts';
import { OrderError, type OrderBook } from './order-book.ts';

export interface OrdersApiDeps {
  book: OrderBook;
  /** API keys the service operator has handed out. */
  apiKeys: ReadonlySet<string>;
  metrics: Metrics;
}

/**
 * The order service under its base address (`.../v1/`). Every failure of the service is 400 `{error}`;
 * a missing or unknown `x-api-key` is stopped before the service by its gateway (403, docs/upstream.md).
 */
export function ordersApi(deps: OrdersApiDeps): Hono {
  const app = new Hono();

  app.use(
    '*',
    createMiddleware(async function apiKeyGate(c, next) {
      const key = c.req.header('x-api-key');
      if (!key || !deps.apiKeys.has(key)) return c.json({ message: 'Forbidden' }, 403);
      await next();
    }),
  );

  app.onError((error, c) => {
    if (error instanceof OrderError) return c.json({ error: error.message }, 400);
    throw error;
  });

  app.post('/orders', async (c) => {
    deps.metrics.count('orders.create');
    const parsed = await parseJsonBody(c, createOrderRequestSchema);
    if (!parsed.ok) throw new OrderError(parsed.error);
    const order = deps.book.create(parsed.data);
    return c.json({ message: 'Order created successfully', orderId: order.orderId }, 201);
  });

  app.get('/orders', (c) => {
    deps.metrics.count('orders.list');
    const filter = c.req.query('filterStatus');
    if (filter === undefined || filter === '') return c.json(deps.book.list());
    const status = orderStatusSchema('filterStatus').safeParse(filter);
    if (!status.success) throw new OrderError(describeZodError(status.error));
    return c.json(deps.book.list(status.data));
  });

  app.get('/orders/:orderId', (c) => {
    deps.metrics.count('orders.get');
    return c.json(deps.book.get(c.req.param('orderId')));
  });

  app.put('/orders/:orderId', async (c) => {
    deps.metrics.count('orders.update');
    const parsed = await parseJsonBody(c, updateOrderRequestSchema);
    if (!parsed.ok) throw new OrderError(parsed.error);
    const order = deps.book.update(c.req.param('orderId'), parsed.data);
    return c.json({
      message: 'Order updated successfully',
      updatedAttributes: { amount: order.amount, orderStatus: order.orderStatus, lastUpdateTime: order.lastUpdateTime },
    });
  });

  // The seed lists DELETE on `/orders` with the id "as a path parameter": the path, the query and the body all work.
  const remove = async (c: Context) => {
    deps.metrics.count('orders.delete');
    const body = await readJsonBody(c);
    if (!body.ok) throw new OrderError(body.error);
    const fromBody = isRecord(body.value) ? body.value.orderId : undefined;
    if (fromBody !== undefined && typeof fromBody !== 'string') throw new OrderError('orderId must be a string');
    const candidates = [c.req.param('orderId'), c.req.query('orderId'), fromBody].filter((id): id is string => !!id);
    if (candidates.length === 0) throw new OrderError('orderId is required: in the path, the query or the body');
    if (new Set(candidates).size > 1) throw new OrderError('orderId is given more than once with different values');
    deps.book.delete(candidates[0]!);
    return c.json({ message: 'Order deleted successfully' });
  };
  app.delete('/orders', remove);
  app.delete('/orders/:orderId', remove);

  return app;
}
