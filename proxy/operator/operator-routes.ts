import { Hono } from 'hono';
import { parseJsonBody } from '../../server-kit/json-body.ts';
import { describeZodError } from '../../lib/zod-message.ts';
import {
  createOrderRequestSchema,
  createOrderResponseSchema,
  deleteOrderResponseSchema,
  orderListSchema,
  orderSchema,
  orderStatusSchema,
  updateOrderRequestSchema,
  updateOrderResponseSchema,
} from '../../schemas/orders.ts';
import {
  bridgeChainsSchema,
  bridgeNetworkSchema,
  healthSchema,
  type Health,
  type PaymentStatusView,
} from '../../schemas/proxy-api.ts';
import { HttpProblem } from '../http/http-problem.ts';
import { callUpstream } from '../domain/domain-errors.ts';
import { refusePrivateKeys } from '../http/middleware/refuse-private-keys.ts';
import { compareDecimals } from '../../lib/money.ts';
import { audited, requestOrAct } from './dual-control.ts';
import { operatorGuards, operatorStream, type OperatorEnv } from './operator-auth.ts';
import { approvalExample } from './approval-examples.ts';
import { approvalSchema } from '../../schemas/operators.ts';
import { newOrderSummary, orderChangeSummary } from './order-actions.ts';
import {
  chainsExample,
  createdOrderExample,
  createOrderExample,
  healthExample,
  orderExample,
  updatedOrderExample,
} from '../http/openapi/examples.ts';
import type { ApiOperations } from '../http/openapi/operation.ts';
import { BAD_BODY, OPERATOR_ONLY, UPSTREAM_FOR_CLIENTS } from '../http/openapi/problems.ts';
import type { ProxyServices } from '../services.ts';
import { stateStream } from '../http/sse.ts';
import { KASSA_VERSION } from '../version.ts';

const started = Date.now();

/** What tells one change of any payment from the next, for the operator's stream. */
const changeKey = (view: PaymentStatusView) =>
  `${view.transactionId}.${view.status}.${view.networkStatus ?? ''}.${view.updatedAt}`;

/**
 * The merchant's operators (the extension): payments with live status, the order service, chains and
 * health. Every route needs an operator's credential whose role gives its permission; creating and
 * changing orders asks a second person first (dual control).
 */
export function operatorRoutes(services: ProxyServices): Hono<OperatorEnv> {
  const { store, orders, chains, coordination, health, operators } = services;
  const app = new Hono<OperatorEnv>();
  const guard = operatorGuards(operatorOperations, operators.access);

  app.get('/api/payments/events', guard('GET /api/payments/events'), (c) =>
    stateStream<PaymentStatusView>(c, {
      event: 'status',
      listen: (send) => coordination.bus.subscribeAll(send),
      current: async () => undefined,
      key: changeKey,
      ...operatorStream(c, services),
    }),
  );

  app.get('/api/orders', guard('GET /api/orders'), async (c) => {
    const filter = c.req.query('filterStatus');
    const status = filter ? orderStatusSchema('filterStatus').safeParse(filter) : undefined;
    if (status && !status.success) throw new HttpProblem(400, describeZodError(status.error));
    return c.json(await callUpstream('client', () => orders.list(status?.data)));
  });

  // Dual control: a mint order is a request for a second person unless it is below the threshold.
  app.post('/api/orders', guard('POST /api/orders'), refusePrivateKeys({ freeText: ['customerName'] }), async (c) => {
    const parsed = await parseJsonBody(c, createOrderRequestSchema);
    if (!parsed.ok) throw new HttpProblem(400, parsed.error);
    const order = parsed.data;
    const ask = { kind: 'order.create', target: null, payload: order, summary: newOrderSummary(order) } as const;
    return requestOrAct(c, operators, { ...ask, permission: 'orders:write', amount: order.amount }, async () => {
      const created = await callUpstream('client', () => orders.create(order));
      await audited(c, operators, 'order.created', { target: { type: 'order', id: created.orderId }, after: order });
      return c.json(created, 201);
    });
  });

  app.get('/api/orders/:orderId', guard('GET /api/orders/{orderId}'), async (c) =>
    c.json(await callUpstream('client', () => orders.get(c.req.param('orderId')))),
  );

  app.put(
    '/api/orders/:orderId',
    guard('PUT /api/orders/{orderId}'),
    refusePrivateKeys({ freeText: ['customerName'] }),
    async (c) => {
      const parsed = await parseJsonBody(c, updateOrderRequestSchema);
      if (!parsed.ok) throw new HttpProblem(400, parsed.error);
      const orderId = c.req.param('orderId');
      const change = parsed.data;
      // The approver reads the order as it is; the threshold weighs the larger of its two amounts.
      const current = await callUpstream('client', () => orders.get(orderId));
      const amount =
        change.amount && compareDecimals(change.amount, current.amount) > 0 ? change.amount : current.amount;
      const summary = orderChangeSummary(current, change);
      const ask = { kind: 'order.update', target: orderId, payload: change, summary } as const;
      return requestOrAct(c, operators, { ...ask, permission: 'orders:write', amount }, async () => {
        const updated = await callUpstream('client', () => orders.update(orderId, change));
        await audited(c, operators, 'order.updated', {
          target: { type: 'order', id: orderId },
          before: { amount: current.amount, orderStatus: current.orderStatus },
          after: updated.updatedAttributes,
        });
        return c.json(updated);
      });
    },
  );

  app.delete('/api/orders/:orderId', guard('DELETE /api/orders/{orderId}'), refusePrivateKeys(), async (c) => {
    const orderId = c.req.param('orderId');
    const deleted = await callUpstream('client', () => orders.delete(orderId));
    await audited(c, operators, 'order.deleted', { target: { type: 'order', id: orderId } });
    return c.json(deleted);
  });

  app.get('/api/chains', guard('GET /api/chains'), async (c) => {
    const network = bridgeNetworkSchema.safeParse(c.req.query('network') ?? 'test');
    if (!network.success) throw new HttpProblem(400, describeZodError(network.error));
    return c.json(await chains.list(network.data));
  });

  app.get('/api/health', guard('GET /api/health'), async (c) => {
    const storeOk = await store.ping().then(
      () => true,
      () => false,
    );
    const endpoints = storeOk ? await services.events?.endpoints().catch(() => undefined) : undefined;
    // An endpoint the receiver disabled (410 Gone) keeps the merchant's events from it: not healthy.
    const eventsStopped = endpoints?.some((endpoint) => !endpoint.enabled) ?? false;
    const body: Health = {
      status: storeOk && !health.degraded && !eventsStopped ? 'ok' : 'degraded',
      version: KASSA_VERSION,
      uptimeSeconds: Math.round((Date.now() - started) / 1000),
      store: storeOk ? 'ok' : 'unavailable',
      payments: { ...health.pay },
      orders: { ...health.orders },
      reforge: { ...health.reforge },
      events: endpoints ? { endpoints } : null,
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

const ORDER_ERRORS = {
  401: OPERATOR_ONLY,
  ...UPSTREAM_FOR_CLIENTS,
  400: 'The order service refused the request (an unknown order, a forbidden status change: its own words)',
};
const ORDER_BODY_ERRORS = { ...ORDER_ERRORS, 400: `${BAD_BODY}; or the order service refused it (its own words)` };
const ORDER_ID = { orderId: { description: 'The order’s id, from createOrder', example: orderExample.orderId } };

export const operatorOperations: ApiOperations = {
  'GET /api/payments/events': {
    operationId: 'streamPaymentChanges',
    summary: 'Follow every payment live',
    description:
      'Server-Sent Events: a `status` event, whose data is a PaymentStatus, for every change of any payment of this shop, from any instance of the proxy. The stream checks its credential twice a second: once it stops working (revoked, expired, its owner suspended or removed, on any instance), the last event is `unauthorized`, with `{error}` as a 401 would give, and the stream ends.',
    audience: 'operator',
    access: { auth: 'operator', permission: 'payments:read' },
    responses: {
      200: {
        description: 'The stream',
        text: {
          contentType: 'text/event-stream',
          description:
            '`event: status`, `data:` a PaymentStatus as JSON; last, perhaps, `event: unauthorized`, `data: {error}`',
        },
      },
    },
    errors: { 401: OPERATOR_ONLY },
  },
  'GET /api/orders': {
    operationId: 'listOrders',
    summary: 'List stablecoin orders',
    description: 'Every order of the stablecoin order service, optionally of one status.',
    audience: 'operator',
    access: { auth: 'operator', permission: 'orders:read' },
    query: {
      filterStatus: { description: 'Only orders of this status', schema: orderStatusSchema('filterStatus').optional() },
    },
    responses: { 200: { description: 'The orders', json: { schema: orderListSchema, example: [orderExample] } } },
    errors: ORDER_ERRORS,
  },
  'POST /api/orders': {
    operationId: 'createOrder',
    summary: 'Create a stablecoin order',
    description:
      'Asks the order service to mint stablecoins to a wallet for a customer’s order. Dual control: the answer is a pending request (202) that a second person with orders:write approves (`POST /api/approvals/{approvalId}/approve`); nothing reaches the order service before. Below KASSA_APPROVAL_THRESHOLD tokens, the order is made at once (201).',
    audience: 'operator',
    access: { auth: 'operator', permission: 'orders:write' },
    request: { schema: createOrderRequestSchema, example: createOrderExample },
    responses: {
      201: {
        description: 'Created at once (below the approval threshold)',
        json: { schema: createOrderResponseSchema, example: createdOrderExample },
      },
      202: {
        description: 'A request waiting for a second person’s approval',
        json: { schema: approvalSchema, example: approvalExample },
      },
    },
    errors: ORDER_BODY_ERRORS,
  },
  'GET /api/orders/{orderId}': {
    operationId: 'getOrder',
    summary: 'Read an order',
    description: 'One order of the stablecoin order service.',
    audience: 'operator',
    access: { auth: 'operator', permission: 'orders:read' },
    params: ORDER_ID,
    responses: { 200: { description: 'The order', json: { schema: orderSchema, example: orderExample } } },
    errors: ORDER_ERRORS,
  },
  'PUT /api/orders/{orderId}': {
    operationId: 'updateOrder',
    summary: 'Change an order’s amount or status',
    description:
      'New → Processing or Cancelled; Processing → Completed or Failed; the others are final. Dual control: a pending request (202) for a second person with orders:write, unless both the order’s amount and the new one are below KASSA_APPROVAL_THRESHOLD (200 at once).',
    audience: 'operator',
    access: { auth: 'operator', permission: 'orders:write' },
    params: ORDER_ID,
    request: { schema: updateOrderRequestSchema, example: { orderStatus: 'Processing' } },
    responses: {
      200: {
        description: 'Changed at once (below the approval threshold): what changed',
        json: { schema: updateOrderResponseSchema, example: updatedOrderExample },
      },
      202: {
        description: 'A request waiting for a second person’s approval',
        json: {
          schema: approvalSchema,
          example: {
            ...approvalExample,
            kind: 'order.update',
            target: 'ord_7Yx2kQ9m',
            payload: { orderStatus: 'Processing' },
            summary: { orderId: 'ord_7Yx2kQ9m', amount: '250', orderStatus: 'New', newOrderStatus: 'Processing' },
          },
        },
      },
    },
    errors: ORDER_BODY_ERRORS,
  },
  'DELETE /api/orders/{orderId}': {
    operationId: 'deleteOrder',
    summary: 'Delete an order',
    description: 'Only an order that is not being processed can be deleted.',
    audience: 'operator',
    access: { auth: 'operator', permission: 'orders:write' },
    params: ORDER_ID,
    responses: {
      200: {
        description: 'Deleted',
        json: { schema: deleteOrderResponseSchema, example: { message: 'Order deleted successfully' } },
      },
    },
    errors: ORDER_BODY_ERRORS,
  },
  'GET /api/chains': {
    operationId: 'listChains',
    summary: 'Chains and tokens',
    description: 'The chains the cross-chain service serves and their tokens, as the wallet panel sees them.',
    audience: 'operator',
    access: { auth: 'operator', permission: 'orders:read' },
    query: { network: { description: 'main or test (default test)', schema: bridgeNetworkSchema.optional() } },
    responses: { 200: { description: 'The chains', json: { schema: bridgeChainsSchema, example: chainsExample } } },
    errors: { ...ORDER_ERRORS, 400: 'network must be main or test; or the cross-chain service refused the request' },
  },
  'GET /api/health': {
    operationId: 'getHealth',
    summary: 'Health of the upstreams, the store and the budgets',
    description:
      'What the operator needs to see why payments fail: each upstream’s state and why, the store, and the requests spent of each upstream budget this minute (fleet-wide).',
    audience: 'operator',
    access: { auth: 'operator', permission: 'payments:read' },
    responses: { 200: { description: 'The health', json: { schema: healthSchema, example: healthExample } } },
    errors: { 401: OPERATOR_ONLY },
  },
};
