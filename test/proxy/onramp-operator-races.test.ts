import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Wallet } from 'ethers';
import type { HttpResult } from '../support/http.ts';
import { mintsTo, ONRAMP_ENV, onrampCustomer, ordersOf } from '../support/onramp.ts';
import { eventually, startStack, type Stack } from '../support/stack.ts';

const MINT_TIMEOUT_SECONDS = 10;
const FINAL_ORDER = new Set(['Completed', 'Failed', 'Cancelled']);

interface Delayed {
  purchaseId: string;
  purchaseToken: string;
  wallet: string;
  firstOrderId: string;
}

/**
 * Operator actions racing on one delayed purchase (issue 35): whatever two actions 30 ms apart do while
 * the order service is slow or fails once, the purchase is minted at most once, and never both refunded
 * and minted. The worker sweeps nothing here (it is woken by the actions, and by the test at the end),
 * so the only actors are the two requests and the worker they wake.
 */
describe('proxy: operator actions on one purchase, racing', () => {
  let stack: Stack;
  const delayed: Delayed[] = [];

  before(async () => {
    stack = await startStack({
      // The actions run at once below KASSA_APPROVAL_THRESHOLD: this suite races the actions themselves
      // (dual control's approval, run once, is test/proxy/dual-control.test.ts's).
      env: {
        ...ONRAMP_ENV,
        KASSA_ONRAMP_MINT_TIMEOUT_SECONDS: String(MINT_TIMEOUT_SECONDS),
        KASSA_APPROVAL_THRESHOLD: '1000000',
      },
      sandbox: { mintDelayMs: 0 },
      proxy: { onrampSweepMs: 3_600_000 },
    });
    // One purchase per test, each delayed by its failed first order, and older than the mint timeout
    // by the time the operator acts on it (so a purchase retried is late at once where the timeout
    // counted from the payment).
    const count = 6;
    await stack.control('/orders/faults', { kind: 'fail', times: count });
    const bought = await Promise.all(
      Array.from({ length: count }, async (_, index) => {
        const wallet = Wallet.createRandom();
        const customer = onrampCustomer(stack, wallet);
        const { purchaseId, purchaseToken } = await customer.buyAndPay({ amount: String(index + 2) });
        await customer.until(purchaseToken, 'delayed');
        const [first] = await ordersOf(stack, purchaseId);
        return { purchaseId, purchaseToken, wallet: wallet.address, firstOrderId: first!.orderId };
      }),
    );
    delayed.push(...bought);
    const paidAt = await Promise.all(
      bought.map(async ({ purchaseId }) =>
        Date.parse((await stack.operator(`/api/onramp/purchases/${purchaseId}`)).body.paidAt as string),
      ),
    );
    const late = Math.max(...paidAt) + MINT_TIMEOUT_SECONDS * 1000 + 500;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, late - Date.now())));
  });
  after(() => stack.stop());

  const act = (purchaseId: string, action: 'retry' | 'refund') =>
    action === 'retry'
      ? stack.operator(`/api/onramp/purchases/${purchaseId}/retry-mint`, { body: {} })
      : stack.operator(`/api/onramp/purchases/${purchaseId}/refund`, { body: { note: 'Returned by SEPA, ref R-1' } });

  /** The first action, and the second one 30 ms later. */
  const race = async (purchaseId: string, first: 'retry' | 'refund', second: 'retry' | 'refund') => {
    const answers: Array<Promise<HttpResult>> = [act(purchaseId, first)];
    await new Promise((resolve) => setTimeout(resolve, 30));
    answers.push(act(purchaseId, second));
    return Promise.all(answers);
  };

  /**
   * Lets everything the actions started run to its end: held orders released, the worker woken, until
   * no order of the purchase can mint any more and the purchase is delivered, refunded, or delayed
   * with nothing that could still deliver it.
   */
  const settle = async (purchaseId: string) =>
    eventually(async () => {
      const held = (await stack.control('/orders/faults')).body.held as string[];
      for (const order of await ordersOf(stack, purchaseId))
        if (held.includes(order.orderId)) await stack.control(`/orders/${order.orderId}/release`, {});
      void stack.proxy.services.onramp!.worker.wake(purchaseId);
      const state = (await stack.operator(`/api/onramp/purchases/${purchaseId}`)).body.state as string;
      const orders = await ordersOf(stack, purchaseId);
      const ended =
        state === 'delivered' ||
        state === 'refunded' ||
        (state === 'delayed' && !orders.some((order) => order.orderStatus === 'Completed'));
      return ended && orders.every((order) => FINAL_ORDER.has(order.orderStatus)) ? { state, orders } : undefined;
    }, 'the purchase settled');

  const slowRead = (orderId: string) =>
    stack.control('/faults', {
      service: 'orders',
      kind: 'slow',
      delayMs: 300,
      method: 'GET',
      path: `/orders/${orderId}`,
    });

  for (const [first, second, fault] of [
    ['retry', 'retry', 'slow'],
    ['refund', 'retry', 'slow'],
    ['retry', 'refund', 'slow'],
    ['retry', 'retry', '500'],
  ] as const)
    it(`"${first}" then "${second}" 30 ms later, while the order read is ${fault === 'slow' ? 'slow (300 ms)' : 'a transient 500'}: one acts, at most one mint, never refunded and minted`, async () => {
      const purchase = delayed.shift()!;
      await stack.control('/orders/faults', undefined, 'DELETE');
      // The new order waits: a stale second action would find the purchase delayed again meanwhile.
      await stack.control('/orders/faults', { kind: 'hold', times: 1 });
      if (fault === 'slow') await slowRead(purchase.firstOrderId);
      else
        await stack.control('/faults', {
          service: 'orders',
          kind: '500',
          method: 'GET',
          path: `/orders/${purchase.firstOrderId}`,
        });
      const answers = await race(purchase.purchaseId, first, second);
      const { state, orders } = await settle(purchase.purchaseId);
      const mints = await mintsTo(stack, 31338, 'eEUR', purchase.wallet);
      const told = answers.map((answer) => `${answer.status} ${answer.body.state ?? answer.body.error}`).join(' | ');
      // The money first: at most one mint, and none for a refunded purchase.
      assert.ok(mints.length <= 1, `${mints.length} mints (${told})`);
      assert.ok(!(state === 'refunded' && mints.length > 0), `refunded and minted (${told})`);
      // Then what the operator was told: one action acted, the other was refused, saying why.
      for (const answer of answers) assert.ok([200, 409].includes(answer.status), `${answer.status} ${answer.text}`);
      const acted = answers.filter((answer) => answer.status === 200);
      assert.equal(acted.length, 1, `one action acts: ${told}`);
      // The other is refused, saying why: usually it came while the first held the purchase (through
      // its slow read); on a loaded machine it may come after the first ended, or overtake it.
      const refused = answers.find((answer) => answer.status === 409)!;
      if (/being worked on/.test(refused.body.error as string)) assert.equal(refused.headers.get('retry-after'), '2');
      else assert.match(refused.body.error as string, /^Only a delayed purchase can be acted on; this one is/);
      if (acted[0]!.body.state === 'refunded') {
        assert.equal(state, 'refunded');
        assert.equal(mints.length, 0, 'refunded, and nothing minted');
        assert.deepEqual(
          orders.map((order) => order.orderStatus),
          ['Failed'],
        );
      } else {
        assert.equal(acted[0]!.body.state, 'paid');
        assert.equal(state, 'delivered');
        assert.equal(mints.length, 1, 'one mint');
        assert.deepEqual(
          orders.map((order) => order.orderStatus),
          ['Failed', 'Completed'],
          'one new order',
        );
      }
    });

  it('an action while another one holds the purchase is told at once that it is being worked on', async () => {
    const purchase = delayed.shift()!;
    await stack.control('/orders/faults', undefined, 'DELETE');
    // The first action is held inside its read of the order, holding the purchase.
    await stack.control('/faults', {
      service: 'orders',
      kind: 'slow',
      delayMs: 3_000,
      method: 'GET',
      path: `/orders/${purchase.firstOrderId}`,
    });
    const first = act(purchase.purchaseId, 'refund');
    await eventually(
      async () => (((await stack.control('/faults')).body as unknown[]).length === 0 ? true : undefined),
      'the first action reading the order',
    );
    const second = await act(purchase.purchaseId, 'retry');
    assert.equal(second.status, 409, second.text);
    assert.equal(
      second.body.error,
      'The purchase is being worked on right now (another action on it, or the mint worker): try again in a moment',
    );
    assert.equal(second.headers.get('retry-after'), '2');
    const done = await first;
    assert.equal(done.status, 200, done.text);
    assert.equal(done.body.state, 'refunded');
    const detail = (await stack.operator(`/api/onramp/purchases/${purchase.purchaseId}`)).body;
    assert.deepEqual(
      (detail.audit as Array<{ action: string }>).map((entry) => entry.action),
      ['refund'],
      'only the action that acted is audited',
    );
  });

  it('a retried purchase has the whole mint timeout again, counted from its new order', async () => {
    const purchase = delayed.shift()!;
    await stack.control('/orders/faults', undefined, 'DELETE');
    await stack.control('/orders/faults', { kind: 'hold', times: 1 });
    const retried = await act(purchase.purchaseId, 'retry');
    assert.equal(retried.status, 200, retried.text);
    assert.equal(retried.body.state, 'paid');
    const detailOf = async () => (await stack.operator(`/api/onramp/purchases/${purchase.purchaseId}`)).body;
    const orderReads = async () => ((await stack.control('/metrics')).body['orders.get'] as number | undefined) ?? 0;
    // The worker has ordered, and read the new order (held Processing)…
    await eventually(async () => {
      const detail = await detailOf();
      return detail.orderAttempts === 2 && detail.order?.orderStatus === 'Processing' ? detail : undefined;
    }, 'the new order processing');
    // …and then looked at the purchase in full once more (its next look has read the order again),
    // unless it made it delayed.
    const reads = await orderReads();
    const detail = await eventually(async () => {
      const now = await detailOf();
      return now.state === 'delayed' || (await orderReads()) >= reads + 2 ? now : undefined;
    }, 'two more looks');
    assert.equal(detail.state, 'minting', `not delayed again at once: ${detail.delayedReason as string}`);
    assert.equal(detail.delayedReason, null);
    const { state } = await settle(purchase.purchaseId);
    assert.equal(state, 'delivered');
    assert.equal((await mintsTo(stack, 31338, 'eEUR', purchase.wallet)).length, 1);
  });
});
