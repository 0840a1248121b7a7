import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Wallet } from 'ethers';
import { ONRAMP_ENV, onrampCustomer, ordersOf } from '../support/onramp.ts';
import { purchaseRecord } from '../support/purchase-records.ts';
import { eventually, startStack, type Stack } from '../support/stack.ts';

const BACKLOG = 1_000;
/**
 * Written a few at a time, below the PostgreSQL pool's 10 connections that the proxy's own work shares:
 * 20 at once queued for a connection, past the pool's 5 s wait on one loaded core.
 */
const AT_ONCE = 4;

/**
 * The worker's sweep finds the purchases that need work first (issue 35): a paid purchase whose first
 * order attempt failed is ordered by the sweep, however many purchases await payment before it.
 */
describe('proxy: the sweep finds paid purchases first, behind any number awaiting payment', () => {
  let stack: Stack;

  before(async () => {
    stack = await startStack({ env: ONRAMP_ENV, sandbox: { mintDelayMs: 0 }, proxy: { onrampSweepMs: 1_000 } });
  });
  after(() => stack.stop());

  /** Unpaid purchases as the on-ramp makes them (each with its checkout, payable for 30 minutes), older than what follows. */
  const unpaidBacklog = async () => {
    const { store, checkouts } = stack.proxy.services;
    for (let start = 0; start < BACKLOG; start += AT_ONCE)
      await Promise.all(
        Array.from({ length: AT_ONCE }, async (_, offset) => {
          const purchase = purchaseRecord();
          await store.purchases.create({ purchase, idempotencyKey: null, limitCents: null, windowStart: 0 });
          await checkouts.create(
            {
              checkoutId: purchase.checkoutId,
              amount: '1.00',
              currencyCode: 'EUR',
              reference: `ONRAMP BACKLOG ${start + offset}`,
              ttlSeconds: 1_800,
            },
            `onramp:${purchase.purchaseId}`,
          );
        }),
      );
  };

  it('a paid purchase whose first order attempt failed is ordered behind 1,000 unpaid ones', async () => {
    await unpaidBacklog();
    // Every order the worker tries fails until the faults are cleared.
    await stack.control('/faults', { service: 'orders', kind: '500', method: 'POST', path: '/orders', times: 10_000 });
    const customer = onrampCustomer(stack, Wallet.createRandom());
    const { purchaseId, purchaseToken } = await customer.buyAndPay({ amount: '4' });
    await customer.until(purchaseToken, 'paid');
    await eventually(
      () =>
        stack.logs.some((line) => line.includes('on-ramp purchase step failed') && line.includes(purchaseId)) ||
        undefined,
      'the first order attempt failed',
    );
    // What the sweep asks the store for first holds it, whatever the backlog.
    const due = await stack.proxy.services.store.purchases.due(Date.now(), 500);
    assert.ok(
      due.some((purchase) => purchase.purchaseId === purchaseId),
      `due: ${due.map((purchase) => purchase.purchaseId).join(', ')}`,
    );
    const unpaid = await stack.proxy.services.store.purchases.unsettled(['awaiting_payment'], BACKLOG + 10);
    assert.ok(unpaid.length >= BACKLOG, 'the backlog still awaits payment');

    // Nothing wakes the purchase now but the sweep.
    await stack.control('/faults', undefined, 'DELETE');
    await customer.until(purchaseToken, 'delivered');
    assert.deepEqual(
      (await ordersOf(stack, purchaseId)).map((order) => order.orderStatus),
      ['Completed'],
      'one order, made by the sweep',
    );
  });
});
