import assert from 'node:assert/strict';
import { http, type Json } from '../http.ts';
import { as } from '../operators.ts';
import { openSse } from '../sse-client.ts';
import { eventually } from '../stack.ts';
import type { Walk } from './walk.ts';

/** An order as the operator routes take it. */
export const ORDER_BODY = {
  customerName: 'Ada',
  chainId: 31337,
  amount: '25',
  mintWallet: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
  customerOrder: 'PO-77',
  stableCoin: 'eUSD',
};

/**
 * The operators' money routes: payments (search, export, resolutions), orders under dual control,
 * approvals, chains, health and the operator stream. The approval request left pending is returned.
 */
export async function walkOperatorMoney(
  { stack, origin, conformance }: Walk,
  payment: Json,
): Promise<{ pendingApprovalId: string }> {
  await stack.operator('/api/payments?status=COMPLETED&limit=5');
  await stack.operator('/api/payments?limit=0');
  await http(`${origin}/api/payments`);
  await stack.operator('/api/payments/export');
  await stack.operator('/api/payments/unverifiable');
  await stack.operator(`/api/payments/resolutions/${payment.transactionId}`, { body: { status: 'X' } });
  await stack.operator('/api/payments/resolutions/unknown', { body: { status: 'FAILED', note: 'statement' } });
  const open = (await stack.pay(await stack.checkout())).body;
  await stack.operator(`/api/payments/resolutions/${open.transactionId}`, {
    body: { status: 'FAILED', note: 'Not on the statement' },
  });
  await stack.operator('/api/orders');
  await stack.operator('/api/orders?filterStatus=Nope');
  // Dual control: a pending request (202), approved by a second person; and, below the threshold of a
  // proxy that has one, at once (201, 200).
  const order = (await stack.approved(stack.operator('/api/orders', { body: ORDER_BODY }))).body.result;
  await stack.operator(`/api/orders/${order.orderId}`);
  await stack.approved(stack.operator(`/api/orders/${order.orderId}`, { method: 'PUT', body: { amount: '30' } }));
  const second = (await stack.operator('/api/orders', { body: { ...ORDER_BODY, customerOrder: 'PO-79' } })).body;
  await stack.operator('/api/approvals?state=pending');
  await stack.operator('/api/approvals?state=lost');
  await stack.operator(`/api/approvals/${second.approvalId}`);
  await stack.operator('/api/approvals/apr_0000000000000000000000');
  await stack.operator(`/api/approvals/${second.approvalId}/approve`, { method: 'POST' });
  await stack.operator(`/api/approvals/${second.approvalId}/reject`, { body: {} });
  const secondPerson = await stack.addOperator('finance');
  await as(origin, secondPerson)(`/api/approvals/${second.approvalId}/reject`, {
    body: { reason: 'No such customer' },
  });
  await as(origin, secondPerson)(`/api/approvals/${second.approvalId}/approve`, { method: 'POST' });
  const third = (await stack.operator('/api/orders', { body: { ...ORDER_BODY, customerOrder: 'PO-80' } })).body;
  await stack.operator(`/api/approvals/${third.approvalId}/cancel`, { body: { reason: 'Wrong wallet' } });
  await stack.operator(`/api/orders/${order.orderId}`, { method: 'DELETE' });
  await stack.operator('/api/orders/unknown');
  await stack.operator('/api/chains');
  await stack.operator('/api/health');
  const sse = openSse(`${origin}/api/payments/events`, { Authorization: `Bearer ${stack.admin.token}` });
  // Listening before the change: the stream subscribes before its headers are sent.
  await eventually(() => sse.status ?? undefined, 'the stream to open');
  await stack.control(`/payments/${payment.transactionId}/outcome`, { status: 'COMPLETED' });
  await sse.waitForEvents(1);
  sse.close();
  assert.equal(conformance.invalid('PaymentStatus', sse.data()[0]), undefined);
  return { pendingApprovalId: second.approvalId as string };
}
