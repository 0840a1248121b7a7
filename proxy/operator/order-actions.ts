import type { CreateOrder, Order, OrderStatus } from '../../schemas/orders.ts';
import type { OrdersClient } from '../upstream/orders-client.ts';
import type { ApprovalRecord, Approvals } from './approvals.ts';

/** What an approver reads of an order to create. */
export const newOrderSummary = (order: CreateOrder): ApprovalRecord['summary'] => ({
  amount: order.amount,
  coin: order.stableCoin,
  chainId: order.chainId,
  wallet: order.mintWallet,
  customerName: order.customerName,
  customerOrder: order.customerOrder,
});

/** What an approver reads of a change to an order: the order as it is, and the change. */
export const orderChangeSummary = (
  order: Order,
  change: { amount?: string | undefined; orderStatus?: OrderStatus | undefined },
): ApprovalRecord['summary'] => ({
  orderId: order.orderId,
  amount: order.amount,
  newAmount: change.amount ?? null,
  orderStatus: order.orderStatus,
  newOrderStatus: change.orderStatus ?? null,
  coin: order.stableCoin,
  chainId: order.chainId,
  wallet: order.mintWallet,
  customerOrder: order.customerOrder,
});

/** Creating and changing mint orders, as dual control runs them once approved. */
export function registerOrderActions(approvals: Approvals, orders: OrdersClient): void {
  approvals.register('order.create', async (approval) => {
    const created = await orders.create(approval.payload as unknown as CreateOrder);
    return { orderId: created.orderId };
  });
  approvals.register('order.update', async (approval) => {
    const change = approval.payload as { amount?: string; orderStatus?: OrderStatus };
    const { updatedAttributes } = await orders.update(approval.target!, change);
    return { orderId: approval.target, amount: updatedAttributes.amount, orderStatus: updatedAttributes.orderStatus };
  });
}
