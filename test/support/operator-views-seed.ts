import assert from 'node:assert/strict';
import { Wallet } from 'ethers';
import { as, type TestOperator } from './operators.ts';
import { onrampCustomer } from './onramp.ts';
import { eventually, type Stack } from './stack.ts';

const MINT_WALLET = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';

/** What the operator views show once seeded: each view's row to open. */
export interface OperatorViewsSeed {
  destinationId: string;
  transactionId: string;
  processingOrder: string;
  colleague: TestOperator;
  delayedPurchase: string;
}

/**
 * Something in every operator view, made through the proxy as operators and customers make it: an
 * event destination (delivering to `receiver`) and a merchant key, a completed payment, an order
 * held Processing (its delete refused), a request another admin asks for approval, that admin in the
 * team, and a delayed purchase (its mint order failed).
 */
export async function seedOperatorViews(stack: Stack, receiver: string): Promise<OperatorViewsSeed> {
  // A destination besides KASSA_EVENTS_URL, whose delivery log the payment below fills, and a merchant key.
  const destination = await stack.operator('/api/event-destinations', {
    body: {
      url: `${receiver}/kassa/analytics`,
      description: 'Analytics',
      enabledEvents: ['checkout.paid', 'payment.completed'],
    },
  });
  assert.equal(destination.status, 201, destination.text);
  const destinationId = destination.body.destination.id as string;
  const key = await stack.operator('/api/merchant-keys', {
    body: { name: 'Shop backend', scopes: ['checkouts:create', 'checkouts:read'], expiresInDays: 365 },
  });
  assert.equal(key.status, 201, key.text);

  // A completed payment for the detail pane and the events, and a Processing order, whose delete
  // the service refuses.
  const transactionId = (
    (await stack.pay(await stack.checkout({ reference: 'A11Y-1', amount: '12.30' }))).body as {
      transactionId: string;
    }
  ).transactionId;
  await stack.control(`/payments/${transactionId}/outcome`, { status: 'COMPLETED' });
  // The emulator's issuer processes every new order at once (the on-ramp's mints): it holds this one Processing.
  await stack.control('/orders/faults', { kind: 'hold', times: 1 });
  // Asked, and approved by a second person (dual control).
  const order = await stack.approved(
    stack.operator('/api/orders', {
      body: {
        customerName: 'Ada',
        chainId: 31337,
        amount: '25',
        mintWallet: MINT_WALLET,
        customerOrder: 'A11Y-ORDER',
        stableCoin: 'eUSD',
      },
    }),
  );
  assert.equal(order.body.state, 'executed', order.text);
  // A request another admin asks, for the Approvals view to show (and a person for the Team view).
  const colleague = await stack.addOperator('admin', 'Other Admin');
  const asked = await as(stack.proxy.origin, colleague)('/api/orders', {
    body: {
      customerName: 'Grace',
      chainId: 31338,
      amount: '75',
      mintWallet: MINT_WALLET,
      customerOrder: 'A11Y-PENDING',
      stableCoin: 'eEUR',
    },
  });
  assert.equal(asked.status, 202, asked.text);
  const processingOrder = order.body.result.orderId as string;
  await eventually(
    async () => (await stack.operator(`/api/orders/${processingOrder}`)).body.orderStatus === 'Processing' || undefined,
    'the order held Processing',
  );

  // A delayed purchase (its mint order failed) for the Purchases view.
  await stack.control('/orders/faults', { kind: 'fail', times: 1 });
  const customer = onrampCustomer(stack, Wallet.createRandom());
  const bought = await customer.buyAndPay({ amount: '12' });
  await customer.until(bought.purchaseToken, 'delayed');
  return { destinationId, transactionId, processingOrder, colleague, delayedPurchase: bought.purchaseId };
}
