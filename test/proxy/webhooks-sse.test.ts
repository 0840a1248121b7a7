import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { http } from '../support/http.ts';
import { openSse } from '../support/sse-client.ts';
import { eventually, SHOP_ORIGIN, startStack, type Stack } from '../support/stack.ts';
import { readsAllowedWithin } from '../support/webhook-storm.ts';

describe('proxy: webhooks and live status', () => {
  let stack: Stack;
  const reads = async () => ((await stack.control('/metrics')).body['pay.read'] as number | undefined) ?? 0;
  const newPayment = async () =>
    (await stack.pay(await stack.checkout())).body as { transactionId: string; statusToken: string; flowUrl: string };
  const status = async (token: string) => (await stack.browser(`/api/payments/status/${token}`)).body.status as string;
  const postHook = (body: unknown, secret = stack.config.webhookSecret) =>
    http(`${stack.proxy.origin}/hooks/payments/${secret}`, {
      raw: typeof body === 'string' ? body : JSON.stringify(body),
      headers: { 'Content-Type': 'application/json' },
    });

  before(async () => {
    stack = await startStack({ proxy: { sseHeartbeatMs: 200 } });
  });
  after(() => stack.stop());

  // That the webhook is answered before its read is done: upstream-faults.test.ts, with the read held.
  it('a real webhook: answered, the payment re-read, the status stored', async () => {
    const payment = await newPayment();
    await stack.control(`/payments/${payment.transactionId}/outcome`, { status: 'COMPLETED' });
    await eventually(async () => ((await status(payment.statusToken)) === 'COMPLETED' ? true : undefined));
    const delivered = (await stack.control(`/webhooks?transactionId=${payment.transactionId}`)).body;
    assert.equal(delivered.length, 1);
    assert.equal(delivered[0].status, 200);
    // The webhook brought it, not a later reason to read (the reconciliation schedule, say).
    assert.equal(stack.changedBy(payment.transactionId, 'COMPLETED'), 'webhook');
  });

  it('a forged webhook never changes a status: upstream is asked, and upstream says PENDING', async () => {
    const payment = await newPayment();
    const before = await reads();
    const answer = await postHook({
      event: 'payment.status_updated',
      transactionId: payment.transactionId,
      status: 'COMPLETED',
      amount: 42.5,
      currencyCode: 'EUR',
      timestamp: new Date().toISOString(),
    });
    assert.equal(answer.status, 200);
    await eventually(async () => ((await reads()) > before ? true : undefined), 'the re-read');
    assert.equal(await status(payment.statusToken), 'PENDING');
  });

  it('deduplicates repeated deliveries, and ignores events for payments it does not know', async () => {
    const payment = await newPayment();
    const event = {
      event: 'payment.status_updated',
      transactionId: payment.transactionId,
      status: 'PENDING',
      timestamp: '2026-01-01T00:00:00Z',
    };
    const before = await reads();
    await Promise.all([postHook(event), postHook(event), postHook(event)]);
    await eventually(async () => ((await reads()) > before ? true : undefined));
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal((await reads()) - before, 1, 'one re-read for three identical deliveries');
    const unknown = await postHook({
      event: 'payment.status_updated',
      transactionId: crypto.randomUUID(),
      status: 'COMPLETED',
    });
    assert.equal(unknown.status, 200);
    for (const junk of ['not json', '{"transactionId": 5}', '[]']) assert.equal((await postHook(junk)).status, 200);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal((await reads()) - before, 1, 'no reads for unknown payments or junk');
  });

  it('answers 404 for a wrong secret and for any other path under /hooks/', async () => {
    const payment = await newPayment();
    const forged = await postHook({ transactionId: payment.transactionId, status: 'COMPLETED' }, 'x'.repeat(40));
    assert.equal(forged.status, 404);
    for (const path of [
      '/hooks/',
      '/hooks/payments',
      '/hooks/orders/abc',
      `/hooks/payments/${stack.config.webhookSecret}/x`,
    ]) {
      assert.equal((await http(`${stack.proxy.origin}${path}`, { body: {} })).status, 404, path);
    }
    assert.equal((await http(`${stack.proxy.origin}/hooks/payments/${stack.config.webhookSecret}`)).status, 404, 'GET');
  });

  it('SSE: the current status at once, each change after, then closed after a final status', async () => {
    const payment = await newPayment();
    const stream = openSse(`${stack.proxy.origin}/api/payments/status/${payment.statusToken}/events`, {
      Origin: SHOP_ORIGIN,
    });
    await stream.waitForEvents(1);
    assert.equal(stream.status, 200);
    assert.match(String(stream.headers['content-type']), /text\/event-stream/);
    assert.equal(stream.headers['access-control-allow-origin'], SHOP_ORIGIN);
    assert.equal(stream.events[0]!.event, 'status');
    assert.equal(stream.data()[0]!.status, 'PENDING');
    await stream.waitForComment();
    assert.equal(stream.comments[0], 'keep-alive');

    await http(payment.flowUrl, {
      raw: 'action=authorise&providerId=bank_xyz',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    await stream.waitForEvents(2);
    const last = stream.data().at(-1)!;
    assert.equal(last.status, 'COMPLETED');
    assert.equal(last.networkStatus, 'PAYMENT_EXECUTED_CREDITED');
    await stream.waitForClose();
  });

  it('SSE for a final payment: the status, then closed; unknown tokens are 404', async () => {
    const payment = await newPayment();
    await stack.control(`/payments/${payment.transactionId}/outcome`, { status: 'FAILED', networkStatus: 'REJECTED' });
    await eventually(async () => ((await status(payment.statusToken)) === 'FAILED' ? true : undefined));
    const stream = openSse(`${stack.proxy.origin}/api/payments/status/${payment.statusToken}/events`);
    await stream.waitForClose();
    assert.deepEqual(
      stream.data().map((view) => [view.status, view.networkStatus, view.retryable]),
      [['FAILED', 'REJECTED', true]],
    );
    const unknown = openSse(`${stack.proxy.origin}/api/payments/status/${'A'.repeat(43)}/events`);
    await unknown.waitForClose();
    assert.equal(unknown.status, 404);
  });

  it('many watchers of one payment: each gets the change, and upstream is read once for them', async () => {
    const payment = await newPayment();
    const streams = Array.from({ length: 50 }, () =>
      openSse(`${stack.proxy.origin}/api/payments/status/${payment.statusToken}/events`),
    );
    await Promise.all(streams.map((stream) => stream.waitForEvents(1)));
    const before = await reads();
    const settled = Date.now();
    await stack.control(`/payments/${payment.transactionId}/outcome`, { status: 'COMPLETED' });
    await Promise.all(streams.map((stream) => stream.waitForEvents(2)));
    assert.ok(streams.every((stream) => stream.data()[1]!.status === 'COMPLETED'));
    // One read (the webhook's), not one per watcher; a slow machine may leave time for the gate to open once more.
    const read = (await reads()) - before;
    assert.ok(read >= 1 && read <= readsAllowedWithin(Date.now() - settled), `${read} reads for 50 watchers`);
    await Promise.all(streams.map((stream) => stream.waitForClose()));
  });

  it('without webhooks, a watched payment is re-read (at most every 5 s) and the change still arrives', async () => {
    await stack.control(`/keys/${stack.sandbox.keyId}`, { webhookUrl: null }, 'PATCH');
    try {
      const payment = await newPayment();
      const before = await reads();
      const watched = Date.now();
      const stream = openSse(`${stack.proxy.origin}/api/payments/status/${payment.statusToken}/events`);
      await stream.waitForEvents(1);
      await stack.control(`/payments/${payment.transactionId}/outcome`, { status: 'COMPLETED' });
      await stream.waitForEvents(2);
      assert.equal(stream.data()[1]!.status, 'COMPLETED');
      const read = (await reads()) - before;
      assert.ok(read <= readsAllowedWithin(Date.now() - watched), `${read} reads: no faster than the gate allows`);
    } finally {
      await stack.control(`/keys/${stack.sandbox.keyId}`, { webhookUrl: stack.webhookUrl() }, 'PATCH');
    }
  });

  it('the operator stream sees every change', async () => {
    const stream = openSse(`${stack.proxy.origin}/api/payments/events`, {
      Authorization: `Bearer ${stack.admin.token}`,
    });
    await stream.waitForComment();
    const payment = await newPayment();
    await stack.control(`/payments/${payment.transactionId}/outcome`, { status: 'COMPLETED' });
    await eventually(() =>
      stream.data().some((view) => view.transactionId === payment.transactionId && view.status === 'COMPLETED')
        ? true
        : undefined,
    );
    stream.close();
    const refused = openSse(`${stack.proxy.origin}/api/payments/events`);
    await refused.waitForClose();
    assert.equal(refused.status, 401);
  });
});
