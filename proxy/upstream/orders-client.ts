import {
  createOrderResponseSchema,
  deleteOrderResponseSchema,
  orderListSchema,
  orderSchema,
  updateOrderResponseSchema,
  type CreateOrder,
  type CreateOrderResponse,
  type Order,
  type OrderStatus,
  type UpdateOrderResponse,
} from '../../schemas/orders.ts';
import { checkAnswer, type MismatchReport } from './answer-check.ts';
import { callReporting, expectOk, MAX_LIST_BYTES, type CallOptions, type UpstreamApi } from './http-call.ts';
import { READ_RETRIES, withRetries } from './retry.ts';
import { UpstreamError } from './upstream-error.ts';
import type { UpstreamHealth } from './upstream-health.ts';

type Schema<T> = { safeParse(value: unknown): { success: true; data: T } | { success: false } };

/**
 * The stablecoin order service. Its own refusals (400 `{error}`) pass through word for word, so the
 * operator sees what the service said. Every operation is retried on transient failures; create and
 * delete stay exactly-once through the service's own rules (customerOrder is unique; a second delete
 * of an order the first one removed finds nothing).
 */
export class OrdersClient {
  constructor(
    private readonly api: UpstreamApi,
    private readonly apiKey: string,
    private readonly health: UpstreamHealth,
    /** Told of every answer that is not about what was asked. */
    private readonly onMismatch: MismatchReport,
  ) {}

  /** Every order (in the status asked for): a list, so it may be larger than one record's answer. */
  list(filterStatus?: OrderStatus): Promise<Order[]> {
    return withRetries(async () => {
      const orders = await this.call('get', 'orders', orderListSchema, {
        searchParams: filterStatus ? { filterStatus } : {},
        maxBytes: MAX_LIST_BYTES,
      });
      for (const order of orders) checkAnswer('orders', 'list', { orderStatus: filterStatus }, order, this.onMismatch);
      return orders;
    }, READ_RETRIES);
  }

  /** The order made under a `customerOrder` (unique at the service), if any: the service can only list them all. */
  async findByCustomerOrder(customerOrder: string): Promise<Order | undefined> {
    return (await this.list()).find((candidate) => candidate.customerOrder === customerOrder);
  }

  get(orderId: string): Promise<Order> {
    return withRetries(async () => {
      const order = await this.call('get', `orders/${encodeURIComponent(orderId)}`, orderSchema);
      checkAnswer('orders', 'get', { orderId }, order, this.onMismatch);
      return order;
    }, READ_RETRIES);
  }

  create(order: CreateOrder): Promise<CreateOrderResponse> {
    return withRetries(async (attempt) => {
      try {
        return await this.call('post', 'orders', createOrderResponseSchema, { json: order });
      } catch (error) {
        // A retry after a lost answer finds its own order already made: that order is the answer.
        if (
          attempt > 1 &&
          error instanceof UpstreamError &&
          error.failure === 'rejected' &&
          /customerOrder already exists/.test(error.message)
        ) {
          const existing = await this.findByCustomerOrder(order.customerOrder);
          if (existing) return { message: 'Order created successfully', orderId: existing.orderId };
        }
        throw error;
      }
    }, READ_RETRIES);
  }

  update(
    orderId: string,
    change: { amount?: string | undefined; orderStatus?: OrderStatus | undefined },
  ): Promise<UpdateOrderResponse> {
    // Setting the same amount or status again is a no-op upstream, so the update is safe to retry.
    return withRetries(
      () => this.call('put', `orders/${encodeURIComponent(orderId)}`, updateOrderResponseSchema, { json: change }),
      READ_RETRIES,
    );
  }

  delete(orderId: string): Promise<{ message: string }> {
    return withRetries(async (attempt) => {
      try {
        return await this.call('delete', `orders/${encodeURIComponent(orderId)}`, deleteOrderResponseSchema);
      } catch (error) {
        if (attempt > 1 && error instanceof UpstreamError && error.message === 'Order not found')
          return { message: 'Order deleted successfully' };
        throw error;
      }
    }, READ_RETRIES);
  }

  private async call<T>(
    method: 'get' | 'post' | 'put' | 'delete',
    path: string,
    schema: Schema<T>,
    options: Omit<CallOptions, 'headers'> = {},
  ): Promise<T> {
    const response = await callReporting(this.health, this.api, 'orders', method, path, {
      ...options,
      headers: { 'x-api-key': this.apiKey },
    });
    return expectOk('orders', response, schema, this.health, `${method.toUpperCase()} ${path}`);
  }
}
