import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { healthSchema } from '../../schemas/proxy-api.ts';
import { openSse } from '../support/sse-client.ts';
import { eventually, startStack, type Stack } from '../support/stack.ts';

const metric = async (stack: Stack, name: string) =>
  ((await stack.control('/metrics')).body[name] as number | undefined) ?? 0;
const proxyPayments = async (stack: Stack, checkoutId: string) =>
  (await stack.operator('/api/payments?limit=200')).body.payments.filter(
    (payment: { checkoutId: string }) => payment.checkoutId === checkoutId,
  );

describe('proxy: upstream faults on initiate', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack({ env: { KASSA_UPSTREAM_TIMEOUT_MS: '600' } });
  });
  after(() => stack.stop());

  for (const [kind, extra] of [
    ['429', {}],
    ['500', {}],
    ['reset', {}],
    ['malformed', {}],
    ['slow', { delayMs: 1_500 }],
    ['500', { stage: 'after' }],
    ['reset', { stage: 'after' }],
  ] as const) {
    it(`${kind}${'stage' in extra ? ' after processing' : ''}: retried; the customer gets exactly one payment`, async () => {
      const checkoutId = await stack.checkout();
      await stack.control('/faults', { service: 'pay', kind, times: 1, path: '/v1/payments/initiate', ...extra });
      const response = await stack.pay(checkoutId, `fault-${kind}-${'stage' in extra ? 'after' : 'before'}`);
      assert.equal(response.status, 201, response.text);
      const list = await proxyPayments(stack, checkoutId);
      assert.equal(list.length, 1);
      assert.equal(list[0].transactionId, response.body.transactionId);
      const again = await stack.pay(checkoutId, `another-tab-${kind}`);
      assert.equal(again.body.transactionId, response.body.transactionId, 'and the checkout has one live payment');
    });
  }

  it('when every retry fails: a clear 502, the checkout stays open, and the same key works once the service recovers', async () => {
    const checkoutId = await stack.checkout();
    await stack.control('/faults', { service: 'pay', kind: '500', times: 3, path: '/v1/payments/initiate' });
    const failed = await stack.pay(checkoutId, 'recover-key-1');
    assert.equal(failed.status, 502);
    assert.equal(failed.body.error, 'The bank payment service is not answering. Please try again.');
    assert.ok(Number(failed.headers.get('retry-after')) > 0);
    assert.equal((await stack.browser(`/api/checkouts/${checkoutId}`)).body.state, 'open');
    const recovered = await stack.pay(checkoutId, 'recover-key-1');
    assert.equal(recovered.status, 201);
    assert.equal((await proxyPayments(stack, checkoutId)).length, 1);
  });

  it('when the service keeps answering 429: the proxy answers its own 429 with Retry-After', async () => {
    const checkoutId = await stack.checkout();
    await stack.control('/faults', { service: 'pay', kind: '429', times: 10, path: '/v1/payments/initiate' });
    const limited = await stack.pay(checkoutId);
    assert.equal(limited.status, 429);
    assert.match(limited.body.error, /try again in \d+ s/);
    assert.ok(Number(limited.headers.get('retry-after')) >= 1);
    await stack.control('/faults', undefined, 'DELETE');
  });

  it('a failing re-read changes nothing: no wrong status; a later read delivers the truth', async () => {
    const payment = (await stack.pay(await stack.checkout())).body;
    await stack.control('/faults', {
      service: 'pay',
      kind: 'malformed',
      times: 2,
      path: `/v1/payments/${payment.transactionId}`,
    });
    await stack.control(`/payments/${payment.transactionId}/outcome`, { status: 'COMPLETED' });
    // The webhook's read, then its queued re-read once the payment's read gate opens (5 s later).
    await eventually(
      async () => ((await stack.control('/faults')).body.length === 0 ? true : undefined),
      'the faults to be used up',
    );
    assert.equal((await stack.browser(`/api/payments/status/${payment.statusToken}`)).body.status, 'PENDING');
    const stream = openSse(`${stack.proxy.origin}/api/payments/status/${payment.statusToken}/events`);
    await stream.waitForEvents(2);
    assert.equal(stream.data().at(-1)!.status, 'COMPLETED');
  });
});

describe('proxy: access tokens', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  it('exchanges one token for many payments, and 1 for 40 concurrent ones', async () => {
    const before = await metric(stack, 'pay.token');
    const checkouts = await Promise.all(Array.from({ length: 40 }, () => stack.checkout()));
    const results = await Promise.all(checkouts.map((checkoutId) => stack.pay(checkoutId)));
    // Made, or (a machine too busy keeps the store past its deadlines) told when to try again.
    const made = results.filter((result) => result.status === 201);
    assert.deepEqual(
      results
        .filter(
          (result) =>
            result.status !== 201 && !(result.status === 503 && Number(result.headers.get('retry-after')) > 0),
        )
        .map(({ status, text }) => `${status} ${text}`),
      [],
    );
    assert.ok(made.length > 0, 'payments were made');
    assert.ok((await metric(stack, 'pay.token')) - before <= 1);
  });

  it('an expired token gets one re-exchange on 401 and the request goes through', async () => {
    await stack.pay(await stack.checkout());
    const before = await metric(stack, 'pay.token');
    await stack.control('/clock', { advanceSeconds: 3600 });
    const response = await stack.pay(await stack.checkout());
    assert.equal(response.status, 201);
    assert.equal((await metric(stack, 'pay.token')) - before, 1);
  });

  it('a frozen account: customers hear payments are unavailable; health and logs say why', async () => {
    await stack.control('/account/freeze', { reason: 'unpaid_invoices' });
    await stack.control('/clock', { advanceSeconds: 3600 });
    try {
      const refused = await stack.pay(await stack.checkout());
      assert.equal(refused.status, 503);
      assert.equal(refused.body.error, 'Payments are unavailable right now. Please try again later.');
      assert.ok(!refused.text.includes('frozen') && !refused.text.includes('invoice'), 'customers are not told why');
      const health = healthSchema.parse((await stack.operator('/api/health')).body);
      assert.equal(health.status, 'degraded');
      assert.equal(health.payments.state, 'account_frozen');
      assert.equal(health.payments.freezeReason, 'unpaid_invoices');
      assert.ok(health.payments.frozenAt);
      assert.ok(stack.logs.some((line) => line.includes('account_frozen') && line.includes('"level":"error"')));
    } finally {
      await stack.control('/account/unfreeze', {});
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
    assert.equal((await stack.pay(await stack.checkout())).status, 201, 'recovers after unfreezing');
    assert.equal((await stack.operator('/api/health')).body.payments.state, 'ok');
  });

  it('a revoked key: invalid_client on health, 503 for customers; the token budget is not burnt retrying', async () => {
    const key = (await stack.control('/keys', {})).body;
    // Held longer than five payments take on a busy machine, whatever the store.
    const own = await startStack({
      reuseSandbox: stack.sandbox,
      env: { KASSA_PAY_CLIENT_SECRET: key.clientSecret },
      proxy: { tokenRefusalHoldMs: 10_000 },
    });
    try {
      assert.equal((await own.pay(await own.checkout())).status, 201);
      await own.control(`/keys/${key.keyId}/revoke`, {});
      const before = await metric(own, 'pay.token');
      for (let i = 0; i < 5; i++) assert.equal((await own.pay(await own.checkout())).status, 503);
      assert.ok((await metric(own, 'pay.token')) - before <= 3, 'refusals are held, not retried on every request');
      const health = (await own.operator('/api/health')).body;
      assert.equal(health.payments.state, 'invalid_client');
      assert.ok(own.logs.some((line) => line.includes('invalid_client')));
    } finally {
      await own.stop();
    }
  });

  it('rotation without downtime: with the next secret configured, expiring the old one changes nothing for customers', async () => {
    const key = (await stack.control('/keys', {})).body;
    const next = (await stack.control(`/keys/${key.keyId}/rotate`, {})).body.clientSecret;
    const own = await startStack({
      reuseSandbox: stack.sandbox,
      env: { KASSA_PAY_CLIENT_SECRET: key.clientSecret, KASSA_PAY_CLIENT_SECRET_NEXT: next },
    });
    try {
      assert.equal((await own.pay(await own.checkout())).status, 201);
      await own.control(`/keys/${key.keyId}/expire-secret`, { clientSecret: key.clientSecret });
      await own.control('/clock', { advanceSeconds: 3600 });
      assert.equal((await own.pay(await own.checkout())).status, 201);
      assert.ok(own.logs.some((line) => line.includes('using KASSA_PAY_CLIENT_SECRET_NEXT')));
    } finally {
      await own.stop();
    }
  });

  it('never asks for more than 10 tokens a minute, however often tokens are refused', async () => {
    const own = await startStack({ reuseSandbox: stack.sandbox });
    try {
      // As if the service refused every token at once: each round throws the token away and asks again.
      const { tokens, coordination } = own.proxy.services;
      const before = await metric(own, 'pay.token');
      let refusedByBudget = 0;
      for (let i = 0; i < 15; i++) {
        const token = await tokens.token().catch(() => undefined);
        if (token) await tokens.invalidate(token.accessToken);
        else refusedByBudget++;
      }
      assert.equal((await metric(own, 'pay.token')) - before, 10);
      assert.equal(refusedByBudget, 5);
      assert.equal(await coordination.tokenBudget.used(), 10);
    } finally {
      await own.stop();
    }
  });
});

describe('proxy: restarts lose nothing', () => {
  it('a payment pending before a restart is followed after it, checkouts and keys survive', async () => {
    const stack = await startStack();
    try {
      const checkoutId = await stack.checkout({ amount: '19.99' });
      const payment = (await stack.pay(checkoutId, 'survives-restart-1')).body;
      await stack.restart({}, async () => {
        // While the proxy is down the bank settles; the webhook cannot be delivered.
        await stack.control(`/payments/${payment.transactionId}/outcome`, { status: 'COMPLETED' });
      });
      const view = await eventually(async () => {
        const current = (await stack.browser(`/api/payments/status/${payment.statusToken}`)).body;
        return current.status === 'COMPLETED' ? current : undefined;
      }, 'the follower to re-read after the restart');
      assert.equal(view.amount, '19.99');
      const replay = await stack.pay(checkoutId, 'survives-restart-1');
      assert.equal(replay.body.transactionId, payment.transactionId, 'the idempotency key survived');
      assert.equal((await stack.browser(`/api/checkouts/${checkoutId}`)).body.state, 'paid');
    } finally {
      await stack.stop();
    }
  });

  it('a payment attempt cut off by a crash does not block its checkout forever', async () => {
    const stack = await startStack();
    try {
      const checkoutId = await stack.checkout();
      const store = stack.proxy.services.store;
      // What a crash between claiming the key and recording the payment leaves behind.
      await store.beginAttempt({
        idempotencyKey: 'crashed-attempt',
        fingerprint: 'x',
        checkoutId,
        statusToken: 'crashed-token',
        now: Date.now() - 120_000,
        staleAfterMs: 60_000,
      });
      const response = await stack.pay(checkoutId, 'after-the-crash');
      assert.equal(response.status, 201);
    } finally {
      await stack.stop();
    }
  });
});

describe('proxy: orders and reforge faults', () => {
  it('order reads and writes survive transient faults, exactly once', async () => {
    const stack = await startStack();
    try {
      await stack.control('/faults', { service: 'orders', kind: 'reset', stage: 'after', times: 1, path: '/orders' });
      const order = {
        customerName: 'Ada',
        chainId: 31337,
        amount: '10',
        mintWallet: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
        customerOrder: 'fault-order-1',
        stableCoin: 'eUSD',
      };
      // Made once a second person approves it (dual control), through the fault.
      const created = await stack.approved(stack.operator('/api/orders', { body: order }));
      assert.equal(created.body.state, 'executed', created.text);
      const all = (await stack.operator('/api/orders')).body as Array<{ customerOrder: string; orderId: string }>;
      const mine = all.filter((candidate) => candidate.customerOrder === 'fault-order-1');
      assert.equal(mine.length, 1);
      assert.equal(mine[0]!.orderId, created.body.result.orderId, 'the lost answer was recovered, not duplicated');
      await stack.control('/faults', { service: 'orders', kind: '500', times: 10 });
      const down = await stack.operator('/api/orders');
      assert.equal(down.status, 502);
      await stack.control('/faults', undefined, 'DELETE');
      await stack.control('/faults', { service: 'reforge', kind: 'malformed', times: 10 });
      const chains = await stack.browser('/api/bridge/chains?network=test');
      assert.equal(chains.status, 502);
      assert.equal((await stack.operator('/api/health')).body.reforge.state, 'unreachable');
      await stack.control('/faults', undefined, 'DELETE');
      assert.equal((await stack.browser('/api/bridge/chains?network=test')).status, 200, 'failures are not cached');
    } finally {
      await stack.stop();
    }
  });
});
