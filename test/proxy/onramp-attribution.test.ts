import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { id, Interface, Wallet, type EventLog } from 'ethers';
import { REFORGE_TOKEN_ABI } from '../../schemas/reforge.ts';
import { anvilAccount, chainProviders, token } from '../support/chains.ts';
import { mintsTo, ONRAMP_ENV, onrampCustomer, ordersOf, units } from '../support/onramp.ts';
import { eventually, startStack, type Stack } from '../support/stack.ts';

const TOKEN = new Interface(REFORGE_TOKEN_ABI);
const orderBurnId = (orderId: string) => id(`kassa-order:${orderId}`);

/**
 * A purchase is delivered by the mint of its own order only (issue 35): the issuer mints an order
 * under the burn id `keccak256("kassa-order:" + orderId)`, and neither a bridge arrival nor another
 * purchase's mint of the same amount to the same wallet is that.
 */
describe('proxy: a purchase is delivered by the mint of its own order', () => {
  let stack: Stack;
  let providers: ReturnType<typeof chainProviders>;

  before(async () => {
    stack = await startStack({
      // "Retry the mint" runs at once below KASSA_APPROVAL_THRESHOLD: this suite is about which mint
      // delivers a purchase (dual control's own suite is test/proxy/dual-control.test.ts).
      env: { ...ONRAMP_ENV, KASSA_APPROVAL_THRESHOLD: '1000000' },
      sandbox: { mintDelayMs: 0 },
      proxy: { onrampSweepMs: 200 },
    });
    providers = chainProviders(stack.sandbox.chains);
  });
  after(async () => {
    providers.destroy();
    await stack.stop();
  });

  const detail = async (purchaseId: string) => (await stack.operator(`/api/onramp/purchases/${purchaseId}`)).body;
  /** The burn ids of the `ReforgeMint`s in a transaction on chain 31338. */
  const burnIdsOf = async (txHash: string) => {
    const receipt = await providers.get(31338).getTransactionReceipt(txHash);
    return receipt!.logs.flatMap((log) => {
      const parsed = TOKEN.parseLog(log);
      return parsed?.name === 'ReforgeMint' ? [parsed.args.burnId as string] : [];
    });
  };
  const retry = (purchaseId: string) => stack.operator(`/api/onramp/purchases/${purchaseId}/retry-mint`, { body: {} });

  it('a bridge arrival of the same amount while the order failed is not a delivery; Retry mints', async () => {
    const wallet = anvilAccount(3);
    const customer = onrampCustomer(stack, wallet);
    await stack.control('/orders/faults', { kind: 'fail', times: 1 });
    const { purchaseId, purchaseToken } = await customer.buyAndPay({ amount: '7' });
    await customer.until(purchaseToken, 'delayed');

    // The customer bridges 7 eEUR from chain 31337 into 31338, to the same wallet.
    const [one, two] = stack.sandbox.chains;
    const source = token(one!, 'eEUR', wallet.connect(providers.get(31337)));
    const burned = (await (await source.reforge!(units('7'), 31338, two!.tokens.eEUR.address)).wait()) as {
      logs: EventLog[];
    };
    const burnId = burned.logs.map((log) => TOKEN.parseLog(log)).find((log) => log?.name === 'ReforgeBurn')!.args
      .burnId as string;
    const destination = token(two!, 'eEUR', providers.get(31338));
    const arrival = await eventually(
      async () => (await destination.queryFilter(destination.filters.ReforgeMint!(wallet.address, null, burnId), 0))[0],
      'the bridge arrival',
    );
    // The worker looks at the purchase with the arrival on the chain: still delayed.
    await stack.proxy.services.onramp!.worker.wake(purchaseId);
    const looked = await detail(purchaseId);
    assert.equal(looked.state, 'delayed', `not delivered by the bridge arrival ${arrival.transactionHash}`);
    assert.equal(looked.txHash, null);

    const retried = await retry(purchaseId);
    assert.equal(retried.status, 200, retried.text);
    assert.equal(retried.body.state, 'paid', 'a new order is made');
    const delivered = await customer.until(purchaseToken, 'delivered');
    const orders = await ordersOf(stack, purchaseId);
    assert.deepEqual(
      orders.map((order) => order.orderStatus),
      ['Failed', 'Completed'],
    );
    assert.notEqual(delivered.txHash, arrival.transactionHash);
    assert.deepEqual(await burnIdsOf(delivered.txHash!), [orderBurnId(orders[1]!.orderId)], 'by its own order');
  });

  it('two purchases of one wallet for the same amount, the first order failed: each is delivered by its own mint', async () => {
    const wallet = Wallet.createRandom();
    const customer = onrampCustomer(stack, wallet);
    await stack.control('/orders/faults', { kind: 'fail', times: 1 });
    const first = await customer.buyAndPay({ amount: '5' });
    await customer.until(first.purchaseToken, 'delayed');
    await stack.control('/orders/faults', { kind: 'hold', times: 1 });
    const second = await customer.buyAndPay({ amount: '5' });
    await eventually(
      async () => ((await detail(second.purchaseId)).order?.orderStatus === 'Processing' ? true : undefined),
      'the second order held',
    );
    const [secondOrder] = await ordersOf(stack, second.purchaseId);
    // The second purchase's worker is in a slow read of its order when that order mints, so the mint
    // is on the chain, and not yet the second purchase's, when the operator retries the first one.
    await stack.control('/faults', {
      service: 'orders',
      kind: 'slow',
      delayMs: 3_000,
      method: 'GET',
      path: `/orders/${secondOrder!.orderId}`,
    });
    await eventually(
      async () => (((await stack.control('/faults')).body as unknown[]).length === 0 ? true : undefined),
      'the slow read under way',
    );
    assert.equal((await stack.control(`/orders/${secondOrder!.orderId}/release`, {})).status, 200);
    await eventually(
      async () => ((await ordersOf(stack, second.purchaseId))[0]!.orderStatus === 'Completed' ? true : undefined),
      'the second order minted',
    );
    const retried = await retry(first.purchaseId);
    assert.equal(retried.status, 200, retried.text);
    assert.equal(retried.body.state, 'paid', "the other purchase's mint is not this one's delivery");

    const [firstDone, secondDone] = await Promise.all([
      customer.until(first.purchaseToken, 'delivered'),
      customer.until(second.purchaseToken, 'delivered'),
    ]);
    const firstOrders = await ordersOf(stack, first.purchaseId);
    assert.deepEqual(await burnIdsOf(firstDone.txHash!), [orderBurnId(firstOrders[1]!.orderId)]);
    assert.deepEqual(await burnIdsOf(secondDone.txHash!), [orderBurnId(secondOrder!.orderId)]);
    assert.equal((await mintsTo(stack, 31338, 'eEUR', wallet.address)).length, 2, 'two payments, two mints');
  });

  it('a late mint of an earlier order still delivers the purchase, and no order is made after it', async () => {
    const wallet = Wallet.createRandom();
    const customer = onrampCustomer(stack, wallet);
    await stack.control('/orders/faults', { kind: 'fail', times: 2 });
    const { purchaseId, purchaseToken } = await customer.buyAndPay({ amount: '3' });
    await customer.until(purchaseToken, 'delayed');
    assert.equal((await retry(purchaseId)).status, 200);
    await eventually(async () => {
      const now = await detail(purchaseId);
      return now.state === 'delayed' && now.orderAttempts === 2 ? true : undefined;
    }, 'the second order failed too');
    const [earlier] = await ordersOf(stack, purchaseId);
    // The issuer mints the first order after all.
    assert.equal((await stack.control(`/orders/${earlier!.orderId}/mint`, {})).status, 200);
    const delivered = await customer.until(purchaseToken, 'delivered');
    assert.deepEqual(await burnIdsOf(delivered.txHash!), [orderBurnId(earlier!.orderId)]);
    const again = await retry(purchaseId);
    assert.equal(again.status, 409, 'a delivered purchase is not retried');
    assert.equal((await ordersOf(stack, purchaseId)).length, 2, 'no third order');
    assert.equal((await mintsTo(stack, 31338, 'eEUR', wallet.address)).length, 1);
  });
});
