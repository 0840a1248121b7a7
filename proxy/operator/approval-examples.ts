/** The OpenAPI document's examples of approval requests, for the money routes of every feature. */
import type { ApprovalView } from '../../schemas/operators.ts';

export const approvalExample: ApprovalView = {
  approvalId: 'apr_Vq3xK9mB2nL7cR1sT0wYzA',
  kind: 'order.create',
  target: null,
  summary: {
    amount: '250',
    coin: 'eUSD',
    chainId: 31337,
    wallet: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    customerName: 'Ada Lovelace',
    customerOrder: 'PO-77',
  },
  payload: {
    customerName: 'Ada Lovelace',
    chainId: 31337,
    amount: '250',
    mintWallet: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    customerOrder: 'PO-77',
    stableCoin: 'eUSD',
  },
  permission: 'orders:write',
  state: 'pending',
  requestedBy: { operatorId: 'op_Q2hKxV0t3mYb9sLr1fWz8A', name: 'Ada Lovelace', role: 'finance' },
  requestedAt: '2026-03-02T09:14:05.000Z',
  expiresAt: '2026-03-03T09:14:05.000Z',
  decidedBy: null,
  decidedAt: null,
  reason: null,
  result: null,
  canDecide: true,
};

export const purchaseApprovalExample: ApprovalView = {
  ...approvalExample,
  kind: 'purchase.retry-mint',
  target: 'pur_4kT9wQ2xLm7bN1cR8sVz',
  permission: 'purchases:act',
  payload: {},
  summary: {
    purchaseId: 'pur_4kT9wQ2xLm7bN1cR8sVz',
    tokens: '25',
    coin: 'eEUR',
    chain: 'Kassa Local One',
    wallet: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    payment: '25.50 EUR',
    state: 'delayed',
    orderId: 'ord_7Yx2kQ9m',
  },
};
