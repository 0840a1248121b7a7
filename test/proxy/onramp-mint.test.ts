import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { Wallet } from 'ethers';
import { anvilAccount } from '../support/chains.ts';
import { http } from '../support/http.ts';
import { balanceOf, mintsTo, ONRAMP_ENV, onrampCustomer, ordersOf, units } from '../support/onramp.ts';
import { eventually, startStack, type Stack } from '../support/stack.ts';
import { startReceiver } from '../support/webhook-receiver.ts';

const eventsSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

describe('proxy: each paid purchase is minted exactly once', () => {
  let stack: Stack;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  before(async () => {
    receiver = await startReceiver();
    stack = await startStack({
      env: {
        ...ONRAMP_ENV,
        KASSA_ONRAMP_MINT_TIMEOUT_SECONDS: '10',
        KASSA_EVENTS_URL: receiver.url,
        KASSA_EVENTS_SECRET: eventsSecret(),
      },
      sandbox: { mintDelayMs: 0 },
      proxy: { onrampSweepMs: 200, onrampPaymentWindowSeconds: 2, eventPollMs: 50 },
    });
  });
  after(async () => {
    await stack.stop();
    await receiver.close();
  });

  it('a storm of duplicated webhooks and wake-ups makes one order and one mint', async () => {
    const wallet = Wallet.createRandom();
    const customer = onrampCustomer(stack, wallet);
    const { purchaseToken, purchaseId, transactionId } = await customer.buyAndPay({ amount: '12.5' });
    const webhook = {
      event: 'payment.status_updated',
      transactionId,
      networkPaymentId: 'NP',
      status: 'COMPLETED',
      amount: 12.5,
      currencyCode: 'EUR',
      timestamp: new Date().toISOString(),
    };
    const worker = stack.proxy.services.onramp!.worker;
    await Promise.all([
      ...Array.from({ length: 20 }, (_, index) =>
        http(stack.webhookUrl(), { body: { ...webhook, timestamp: new Date(Date.now() + index).toISOString() } }),
      ),
      ...Array.from({ length: 20 }, () => worker.wake(purchaseId)),
    ]);
    await customer.until(purchaseToken, 'delivered');
    assert.equal((await ordersOf(stack, purchaseId)).length, 1, 'one order');
    assert.equal((await mintsTo(stack, 31338, 'eEUR', wallet.address)).length, 1, 'one mint');
    assert.equal(await balanceOf(stack, 31338, 'eEUR', wallet.address), units('12.5'));
  });

  it('sends onramp.paid then onramp.delivered to the merchant, from the outbox', async () => {
    const wallet = Wallet.createRandom();
    const { purchaseToken, purchaseId } = await onrampCustomer(stack, wallet).buyAndPay({ amount: '3' });
    const delivered = await onrampCustomer(stack, wallet).until(purchaseToken, 'delivered');
    const events = await eventually(() => {
      const found = receiver.received
        .map(
          (request) =>
            JSON.parse(request.body) as {
              type: string;
              sequence: number;
              data: { purchaseId: string; txHash: string | null };
            },
        )
        .filter((event) => event.type.startsWith('onramp.') && event.data.purchaseId === purchaseId);
      return found.length >= 2 ? found : undefined;
    }, 'the purchase events');
    assert.deepEqual(
      events.map((event) => event.type),
      ['onramp.paid', 'onramp.delivered'],
    );
    assert.ok(events[1]!.sequence > events[0]!.sequence, 'ordered by the purchase revision');
    assert.equal(events[1]!.data.txHash, delivered.txHash);
  });

  it('fails a purchase whose checkout expires unpaid (onramp.failed), and mints nothing', async () => {
    const wallet = Wallet.createRandom();
    const customer = onrampCustomer(stack, wallet);
    const created = await customer.purchase({ amount: '2' });
    assert.equal(created.status, 201);
    const { purchaseToken } = created.body as { purchaseToken: string };
    const failed = await customer.until(purchaseToken, 'failed');
    assert.equal(failed.txHash, null);
    await eventually(
      () =>
        receiver.received.some(
          (request) => request.body.includes('"onramp.failed"') && request.body.includes(failed.purchaseId),
        ) || undefined,
      'onramp.failed',
    );
    assert.equal((await ordersOf(stack, failed.purchaseId)).length, 0);
    // Its 2 eEUR no longer count against the wallet's limit.
    assert.equal((await customer.quote({ amount: '1000' })).status, 422, 'above the per-purchase bound');
    assert.equal((await customer.quote({ amount: '500' })).status, 201);
  });

  it('a failed mint order makes the purchase delayed; "Retry the mint" mints once, under a new order', async () => {
    await stack.control('/orders/faults', { kind: 'fail', times: 1 });
    const wallet = Wallet.createRandom();
    const customer = onrampCustomer(stack, wallet);
    const { purchaseToken, purchaseId } = await customer.buyAndPay({ amount: '7' });
    await customer.until(purchaseToken, 'delayed');
    const detail = await stack.operator(`/api/onramp/purchases/${purchaseId}`);
    assert.equal(detail.body.order.orderStatus, 'Failed');
    assert.match(detail.body.delayedReason as string, /Failed/);
    assert.equal(await balanceOf(stack, 31338, 'eEUR', wallet.address), 0n);

    // Asked by one operator, approved by a second (dual control): only then is a new order made.
    const retried = await stack.approved(
      stack.operator(`/api/onramp/purchases/${purchaseId}/retry-mint`, { body: {} }),
    );
    assert.equal(retried.body.state, 'executed', retried.text);
    assert.equal(retried.body.result.state, 'paid');
    await customer.until(purchaseToken, 'delivered');
    const orders = await ordersOf(stack, purchaseId);
    assert.deepEqual(
      orders.map((order) => [order.customerOrder.endsWith('-1'), order.orderStatus]),
      [
        [true, 'Failed'],
        [false, 'Completed'],
      ],
    );
    assert.equal((await mintsTo(stack, 31338, 'eEUR', wallet.address)).length, 1, 'one mint');
    const audited = await stack.operator(`/api/onramp/purchases/${purchaseId}`);
    assert.equal(audited.body.orderAttempts, 2);
    assert.deepEqual(
      (audited.body.audit as Array<{ action: string; previousState: string; state: string }>).map((entry) => [
        entry.action,
        entry.previousState,
        entry.state,
      ]),
      [['retry-mint', 'delayed', 'paid']],
    );
    const again = await stack.operator(`/api/onramp/purchases/${purchaseId}/retry-mint`, { body: {} });
    assert.equal(again.status, 409, 'a delivered purchase is not minted again');
  });

  it('"Mark refunded" records the note and ends the purchase; it is refused for a delivered one', async () => {
    await stack.control('/orders/faults', { kind: 'fail', times: 1 });
    const wallet = Wallet.createRandom();
    const customer = onrampCustomer(stack, wallet);
    const { purchaseToken, purchaseId } = await customer.buyAndPay({ amount: '9' });
    await customer.until(purchaseToken, 'delayed');
    const noNote = await stack.operator(`/api/onramp/purchases/${purchaseId}/refund`, { body: {} });
    assert.equal(noNote.status, 400);
    const refunded = await stack.approved(
      stack.operator(`/api/onramp/purchases/${purchaseId}/refund`, {
        body: { note: 'Returned 9.00 EUR by SEPA on 25 Nov, ref R-991' },
      }),
    );
    assert.equal(refunded.body.state, 'executed', refunded.text);
    assert.equal(refunded.body.result.state, 'refunded');
    const detail = await stack.operator(`/api/onramp/purchases/${purchaseId}`);
    assert.equal(detail.body.audit[0].note, 'Returned 9.00 EUR by SEPA on 25 Nov, ref R-991');
    assert.equal(detail.body.audit[0].action, 'refund');
    assert.match(detail.body.audit[0].requestId as string, /.+/);
    assert.equal((await customer.status(purchaseToken)).body.state, 'refunded');
    assert.equal(await balanceOf(stack, 31338, 'eEUR', wallet.address), 0n);
  });

  it('a late mint (held by the issuer) is delayed, cannot be retried while processing, and is delivered once released', async () => {
    await stack.control('/orders/faults', { kind: 'hold', times: 1 });
    const wallet = Wallet.createRandom();
    const customer = onrampCustomer(stack, wallet);
    const { purchaseToken, purchaseId } = await customer.buyAndPay({ amount: '4' });
    await customer.until(purchaseToken, 'delayed');
    const refused = await stack.approved(
      stack.operator(`/api/onramp/purchases/${purchaseId}/retry-mint`, { body: {} }),
    );
    assert.equal(refused.body.state, 'failed');
    assert.match(refused.body.result.error as string, /still processing/);
    const [order] = await ordersOf(stack, purchaseId);
    assert.equal((await stack.control(`/orders/${order!.orderId}/release`, {})).status, 200);
    await customer.until(purchaseToken, 'delivered');
    assert.equal((await mintsTo(stack, 31338, 'eEUR', wallet.address)).length, 1);
  });

  it('accepts the proof of a contract wallet (EIP-1271) and delivers to the contract', async () => {
    const owner = anvilAccount(6);
    const deployed = await stack.control('/chains/31338/smart-wallets', { owner: owner.address });
    const contract = deployed.body.address as string;
    const customer = onrampCustomer(stack, { address: contract, signMessage: (message) => owner.signMessage(message) });
    const created = await customer.purchase({ amount: '6' }, owner);
    assert.equal(created.status, 201, created.text);
    const { purchaseToken } = created.body as { purchaseToken: string };
    const paid = await stack.pay(created.body.purchase.checkoutId as string);
    await stack.control(`/payments/${paid.body.transactionId as string}/outcome`, { status: 'COMPLETED' });
    await customer.until(purchaseToken, 'delivered');
    assert.equal(await balanceOf(stack, 31338, 'eEUR', contract), units('6'));
    // Another key's signature for the contract is refused.
    assert.equal((await customer.purchase({ amount: '6' }, anvilAccount(8))).status, 400);
  });
});
