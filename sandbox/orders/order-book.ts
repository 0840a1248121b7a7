import { randomUUID } from 'node:crypto';
import type { SandboxClock } from '../clock.ts';
import {
  canMoveOrder,
  ORDER_NOT_FOUND,
  ORDER_TRANSITIONS,
  type CreateOrder,
  type Order,
  type OrderStatus,
} from '../../schemas/orders.ts';

/** A failure the service answers with 400 `{error}`. */
export class OrderError extends Error {}

export interface OrderBookOptions {
  /** The chains orders may mint on: the emulator's own chains. */
  chainIds: readonly number[];
  /** Called with each new order: the issuer processes it. */
  onCreated?: (order: Order) => void;
  /** Called once when an order becomes Completed: the emulator mints it then (once, whoever completes it). */
  onCompleted?: (order: Order) => void;
}

/** Every order of the service; `customerOrder` is unique across them. */
export class OrderBook {
  private readonly orders = new Map<string, Order>();

  constructor(
    private readonly clock: SandboxClock,
    private readonly options: OrderBookOptions,
  ) {}

  create(input: CreateOrder): Order {
    if (!this.options.chainIds.includes(input.chainId)) {
      throw new OrderError(`Invalid chainId: ${input.chainId} (supported: ${this.options.chainIds.join(', ')})`);
    }
    for (const order of this.orders.values()) {
      if (order.customerOrder === input.customerOrder)
        throw new OrderError(`customerOrder already exists: ${input.customerOrder}`);
    }
    const now = this.clock.now();
    const order: Order = {
      orderId: randomUUID(),
      customerName: input.customerName,
      customerOrder: input.customerOrder,
      stableCoin: input.stableCoin,
      amount: input.amount,
      mintWallet: input.mintWallet,
      chainId: input.chainId,
      orderDate: now,
      orderStatus: 'New',
      lastUpdateTime: now,
    };
    this.orders.set(order.orderId, order);
    this.options.onCreated?.({ ...order });
    return { ...order };
  }

  /** In creation order, oldest first. */
  list(filterStatus?: OrderStatus): Order[] {
    return [...this.orders.values()]
      .filter((order) => !filterStatus || order.orderStatus === filterStatus)
      .map((order) => ({ ...order }));
  }

  get(orderId: string): Order {
    const order = this.orders.get(orderId);
    if (!order) throw new OrderError(ORDER_NOT_FOUND);
    return { ...order };
  }

  /** The amount may change only while the order is New; the status follows ORDER_TRANSITIONS. */
  update(orderId: string, change: { amount?: string | undefined; orderStatus?: OrderStatus | undefined }): Order {
    const order = this.orders.get(orderId);
    if (!order) throw new OrderError(ORDER_NOT_FOUND);
    const from = order.orderStatus as OrderStatus;
    if (change.amount !== undefined && change.amount !== order.amount && from !== 'New') {
      throw new OrderError(`amount can change only while the order is New; it is ${from}`);
    }
    if (change.orderStatus !== undefined && !canMoveOrder(from, change.orderStatus)) {
      const allowed = ORDER_TRANSITIONS[from];
      throw new OrderError(
        `Invalid orderStatus transition: ${from} -> ${change.orderStatus} (${allowed.length ? `allowed: ${allowed.join(', ')}` : `${from} is final`})`,
      );
    }
    if (change.amount !== undefined) order.amount = change.amount;
    if (change.orderStatus !== undefined) order.orderStatus = change.orderStatus;
    order.lastUpdateTime = Math.max(this.clock.now(), order.lastUpdateTime);
    if (from !== 'Completed' && order.orderStatus === 'Completed') this.options.onCompleted?.({ ...order });
    return { ...order };
  }

  /** Orders being processed are minting and cannot be deleted; any other can. */
  delete(orderId: string): void {
    const order = this.orders.get(orderId);
    if (!order) throw new OrderError(ORDER_NOT_FOUND);
    if (order.orderStatus === 'Processing') throw new OrderError('Order is Processing and cannot be deleted');
    this.orders.delete(orderId);
  }
}
