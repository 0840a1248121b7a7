/**
 * The operator views' requests: payments, orders, events and on-ramp purchases, each one call to an
 * operator route of the proxy (operator-api.ts), its answer checked against the proxy's schema. Money
 * actions answer as dual control has them: done, or sent for a second person's approval.
 */
import { describeZodError } from '../../lib/zod-message.ts';
import { eventEndpointSchema } from '../../schemas/event-endpoint.ts';
import { eventDetailSchema, eventListSchema, eventSummarySchema, redeliverResultSchema } from '../../schemas/events.ts';
import { operatorPurchaseSchema, purchaseDetailSchema, purchaseListSchema } from '../../schemas/onramp.ts';
import {
  createOrderRequestSchema,
  createOrderResponseSchema,
  orderListSchema,
  updateOrderRequestSchema,
  updateOrderResponseSchema,
  type Order,
} from '../../schemas/orders.ts';
import { resolvedPaymentSchema, unverifiableListSchema, type PaymentList } from '../../schemas/proxy-api.ts';
import type { PaymentSearch } from '../messages.ts';
import type { MoneyAnswer } from '../operator-messages.ts';
import { refreshBadge } from './approvals-badge.ts';
import { listChains } from './chains.ts';
import { moneyCall, operatorCall, operatorFile } from './operator-api.ts';
import { listenToPayments } from './payment-stream.ts';
import { proxyAnswer, query } from './proxy-answer.ts';
import { RefusedRequest, type UiHandlers } from './ui-requests.ts';

/** The search fields of a request, in the order the proxy's query shows them. */
function searchOf(request: PaymentSearch): PaymentSearch {
  const { status, checkoutId, reference, from, to, minAmount, maxAmount } = request;
  return { status, checkoutId, reference, from, to, minAmount, maxAmount };
}

/** A money action's answer when done at once, as its schema says (moneyCall checks the 202 of dual control). */
async function moneyAnswer<T>(
  schema: Parameters<typeof proxyAnswer<T>>[0],
  call: Promise<MoneyAnswer<unknown>>,
): Promise<MoneyAnswer<T>> {
  const answer = await call;
  void refreshBadge();
  return 'done' in answer ? { done: proxyAnswer(schema, answer.done) } : answer;
}

const id = (value: string) => encodeURIComponent(value);

export const paymentHandlers = {
  'payments.list': (request) =>
    operatorCall<PaymentList>(
      `/api/payments${query({ ...searchOf(request), limit: request.limit, cursor: request.cursor })}`,
    ),
  'payments.export': async (request) => {
    const file = await operatorFile(`/api/payments/export${query(searchOf(request))}`, 'text/csv');
    return { filename: file.filename.endsWith('.csv') ? file.filename : `${file.filename}.csv`, csv: file.text };
  },
  'payments.unverifiable': async () =>
    proxyAnswer(unverifiableListSchema, await operatorCall('/api/payments/unverifiable')),
  'payments.resolve': async ({ transactionId, status, note }) =>
    proxyAnswer(
      resolvedPaymentSchema,
      await operatorCall(`/api/payments/resolutions/${id(transactionId)}`, { method: 'POST', body: { status, note } }),
    ),
} satisfies Partial<UiHandlers>;

/** The payments view holds this port open: each payment's new status, and the stream's state, as they come. */
export function acceptPaymentsPort(port: chrome.runtime.Port): void {
  const stop = listenToPayments({
    onStatus: (payment) => port.postMessage({ type: 'status', payment }),
    onState: (state, error) => port.postMessage({ type: 'stream', state, ...(error ? { error } : {}) }),
  });
  port.onDisconnect.addListener(stop);
}

export const orderHandlers = {
  'orders.list': async ({ filterStatus }) =>
    orderListSchema.parse(await operatorCall<unknown>(`/api/orders${query({ filterStatus })}`)),
  'orders.create': async (request) => {
    const parsed = createOrderRequestSchema.safeParse(request.order);
    if (!parsed.success) throw new RefusedRequest(describeZodError(parsed.error));
    const chains = await listChains();
    if (!chains.some((chain) => chain.chainId === parsed.data.chainId))
      throw new RefusedRequest(`Chain ${parsed.data.chainId} is not in the proxy's chain listing`);
    const existing = await operatorCall<Order[]>('/api/orders');
    const taken = existing.find((order) => order.customerOrder === parsed.data.customerOrder);
    if (taken)
      throw new RefusedRequest(
        `Customer order "${parsed.data.customerOrder}" is already used by order ${taken.orderId}`,
      );
    return moneyAnswer(createOrderResponseSchema, moneyCall('/api/orders', { method: 'POST', body: parsed.data }));
  },
  'orders.update': async (request) => {
    const parsed = updateOrderRequestSchema.safeParse({ amount: request.amount, orderStatus: request.orderStatus });
    if (!parsed.success) throw new RefusedRequest(describeZodError(parsed.error));
    return moneyAnswer(
      updateOrderResponseSchema,
      moneyCall(`/api/orders/${id(request.orderId)}`, { method: 'PUT', body: parsed.data }),
    );
  },
  'orders.delete': ({ orderId }) => operatorCall(`/api/orders/${id(orderId)}`, { method: 'DELETE' }),
} satisfies Partial<UiHandlers>;

export const eventHandlers = {
  'events.list': async ({ status, type, limit }) =>
    proxyAnswer(eventListSchema, await operatorCall<unknown>(`/api/events${query({ status, type, limit })}`)),
  'events.get': async (request) =>
    proxyAnswer(eventDetailSchema, await operatorCall<unknown>(`/api/events/${id(request.id)}`)),
  'events.redeliver': async (request) =>
    proxyAnswer(
      eventSummarySchema,
      await operatorCall<unknown>(`/api/events/${id(request.id)}/redeliver`, { method: 'POST' }),
    ),
  'events.enableEndpoint': async (request) =>
    proxyAnswer(
      eventEndpointSchema,
      await operatorCall<unknown>(`/api/events/endpoints/${id(request.id)}/enable`, { method: 'POST' }),
    ),
  'events.redeliverFailed': async ({ since }) =>
    proxyAnswer(
      redeliverResultSchema,
      await operatorCall<unknown>('/api/events/redeliver', { method: 'POST', body: { status: 'failed', since } }),
    ),
} satisfies Partial<UiHandlers>;

export const purchaseHandlers = {
  'purchases.list': async ({ state, limit, cursor }) =>
    proxyAnswer(purchaseListSchema, await operatorCall(`/api/onramp/purchases${query({ state, limit, cursor })}`)),
  'purchases.get': async (request) =>
    proxyAnswer(purchaseDetailSchema, await operatorCall(`/api/onramp/purchases/${id(request.id)}`)),
  'purchases.retryMint': (request) =>
    moneyAnswer(
      operatorPurchaseSchema,
      moneyCall(`/api/onramp/purchases/${id(request.id)}/retry-mint`, { method: 'POST' }),
    ),
  'purchases.refund': (request) =>
    moneyAnswer(
      operatorPurchaseSchema,
      moneyCall(`/api/onramp/purchases/${id(request.id)}/refund`, { method: 'POST', body: { note: request.note } }),
    ),
} satisfies Partial<UiHandlers>;
