import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Interface, Transaction } from 'ethers';
import { orderListSchema } from '../../schemas/orders.ts';
import { healthSchema, paymentListSchema } from '../../schemas/proxy-api.ts';
import { chainListSchema, REFORGE_TOKEN_ABI } from '../../schemas/reforge.ts';
import { http } from '../support/http.ts';
import { eventually, SHOP_ORIGIN, startStack, type Stack } from '../support/stack.ts';

const WALLET = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
const metric = async (stack: Stack, name: string) =>
  ((await stack.control('/metrics')).body[name] as number | undefined) ?? 0;

describe('proxy: operator routes', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  it('every operator route needs an operator’s credential (not the merchant key)', async () => {
    for (const [method, path] of [
      ['GET', '/api/payments'],
      ['GET', '/api/orders'],
      ['POST', '/api/orders'],
      ['GET', '/api/orders/x'],
      ['PUT', '/api/orders/x'],
      ['DELETE', '/api/orders/x'],
      ['GET', '/api/health'],
      ['GET', '/api/chains'],
    ]) {
      for (const token of [undefined, stack.config.merchantKey]) {
        const response = await http(`${stack.proxy.origin}${path}`, {
          method,
          headers: token ? { Authorization: `Bearer ${token}` } : {},
          ...(method === 'GET' || method === 'DELETE' ? {} : { body: {} }),
        });
        assert.equal(response.status, 401, `${method} ${path}`);
      }
    }
  });

  it('lists payments newest first, filters by status, and pages with a cursor', async () => {
    const made: string[] = [];
    for (let i = 0; i < 5; i++)
      made.push((await stack.pay(await stack.checkout({ reference: `LIST-${i}` }))).body.transactionId);
    await stack.control(`/payments/${made[1]}/outcome`, { status: 'COMPLETED' });
    // The proxy learns of the completion from the webhook, a moment after the emulator settles it.
    await eventually(
      async () => ((await stack.proxy.services.store.paymentById(made[1]!))?.status === 'COMPLETED' ? true : undefined),
      'the proxy to record the completed payment',
    );
    const first = paymentListSchema.parse((await stack.operator('/api/payments?limit=2')).body);
    assert.deepEqual(
      first.payments.map((payment) => payment.transactionId),
      [made[4], made[3]],
    );
    assert.ok(first.nextCursor);
    const second = paymentListSchema.parse(
      (await stack.operator(`/api/payments?limit=2&cursor=${first.nextCursor}`)).body,
    );
    assert.deepEqual(
      second.payments.map((payment) => payment.transactionId),
      [made[2], made[1]],
    );
    const pending = paymentListSchema.parse((await stack.operator('/api/payments?status=PENDING&limit=200')).body);
    assert.ok(pending.payments.every((payment) => payment.status === 'PENDING'));
    assert.equal(
      pending.payments.some((payment) => payment.transactionId === made[1]),
      false,
    );
    const view = first.payments[0]!;
    assert.equal(view.reference, 'LIST-4');
    assert.ok(view.networkPaymentId);
    for (const query of ['limit=0', 'limit=201', 'limit=x', 'status=pending', 'cursor=bm9wZQ']) {
      const bad = await stack.operator(`/api/payments?${query}`);
      assert.equal(bad.status, 400, query);
      assert.equal(typeof bad.body.error, 'string');
    }
  });

  it('orders: create, list, filter, read, update, delete, through the order service (each change approved by a second person)', async () => {
    const created = await stack.approved(
      stack.operator('/api/orders', {
        body: {
          customerName: 'Ada',
          chainId: 31337,
          amount: '250.5',
          mintWallet: WALLET.toLowerCase(),
          customerOrder: 'op-1',
          stableCoin: 'eGBR',
        },
      }),
    );
    assert.equal(created.body.state, 'executed');
    const { orderId } = created.body.result;
    const order = (await stack.operator(`/api/orders/${orderId}`)).body;
    assert.equal(order.mintWallet, WALLET);
    assert.equal(order.amount, '250.5');
    const updated = await stack.approved(
      stack.operator(`/api/orders/${orderId}`, { method: 'PUT', body: { orderStatus: 'Processing' } }),
    );
    assert.equal(updated.body.state, 'executed');
    assert.equal(updated.body.result.orderStatus, 'Processing');
    const processing = orderListSchema.parse((await stack.operator('/api/orders?filterStatus=Processing')).body);
    assert.deepEqual(
      processing.map((entry) => entry.orderId),
      [orderId],
    );
    assert.deepEqual(orderListSchema.parse((await stack.operator('/api/orders?filterStatus=New')).body), []);
    await stack.approved(stack.operator(`/api/orders/${orderId}`, { method: 'PUT', body: { orderStatus: 'Failed' } }));
    const deleted = await stack.operator(`/api/orders/${orderId}`, { method: 'DELETE' });
    assert.deepEqual(deleted.body, { message: 'Order deleted successfully' });
    assert.equal((await stack.operator('/api/orders')).body.length, 0);
  });

  it("shows the order service's own refusals word for word (in the approval that ran the action)", async () => {
    const body = {
      customerName: 'Ada',
      chainId: 31337,
      amount: '1',
      mintWallet: WALLET,
      customerOrder: 'dup-1',
      stableCoin: 'eUSD',
    };
    assert.equal((await stack.approved(stack.operator('/api/orders', { body }))).body.state, 'executed');
    const duplicate = await stack.approved(stack.operator('/api/orders', { body }));
    assert.equal(duplicate.body.state, 'failed');
    assert.equal(duplicate.body.result.error, 'customerOrder already exists: dup-1');
    const missing = await stack.operator('/api/orders/nope');
    assert.deepEqual([missing.status, missing.body], [400, { error: 'Order not found' }]);
    // A change of an order the service does not know is refused before anyone is asked to approve it.
    const unknownChange = await stack.operator('/api/orders/nope', { method: 'PUT', body: { orderStatus: 'Failed' } });
    assert.deepEqual([unknownChange.status, unknownChange.body], [400, { error: 'Order not found' }]);
    const orderId = (await stack.operator('/api/orders')).body[0].orderId;
    const jump = await stack.approved(
      stack.operator(`/api/orders/${orderId}`, { method: 'PUT', body: { orderStatus: 'Completed' } }),
    );
    assert.equal(jump.body.state, 'failed');
    assert.match(jump.body.result.error, /Invalid orderStatus transition: New -> Completed/);
  });

  it('validates orders before sending them: nothing reaches the service', async () => {
    const before = await metric(stack, 'orders.create');
    for (const [body, message] of [
      [
        {
          customerName: 'Ada',
          chainId: 31337,
          amount: '-1',
          mintWallet: WALLET,
          customerOrder: 'v-1',
          stableCoin: 'eUSD',
        },
        /amount must be a positive decimal/,
      ],
      [
        {
          customerName: 'Ada',
          chainId: 31337,
          amount: '1',
          mintWallet: '0x123',
          customerOrder: 'v-2',
          stableCoin: 'eUSD',
        },
        /Invalid mintWallet/,
      ],
      [
        {
          customerName: 'Ada',
          chainId: 31337,
          amount: '1',
          mintWallet: WALLET,
          customerOrder: 'v-3',
          stableCoin: 'eYEN',
        },
        /Invalid stableCoin/,
      ],
      [
        { customerName: '', chainId: 31337, amount: '1', mintWallet: WALLET, customerOrder: 'v-4', stableCoin: 'eUSD' },
        /customerName must not be empty/,
      ],
      [
        { customerName: 'Ada', amount: '1', mintWallet: WALLET, customerOrder: 'v-5', stableCoin: 'eUSD' },
        /chainId is required/,
      ],
      // "\u202Eevil" reads "live", and the text after it backwards, wherever it is shown.
      [
        {
          customerName: '\u202Eevil',
          chainId: 31337,
          amount: '1',
          mintWallet: WALLET,
          customerOrder: 'v-6',
          stableCoin: 'eUSD',
        },
        /customerName must not contain bidirectional control characters \(U\+202A–U\+202E/,
      ],
      [
        {
          customerName: 'Ada',
          chainId: 31337,
          amount: '1',
          mintWallet: WALLET,
          customerOrder: 'v-7\u2066',
          stableCoin: 'eUSD',
        },
        /customerOrder must not contain bidirectional control characters/,
      ],
    ] as const) {
      const response = await stack.operator('/api/orders', { body });
      assert.equal(response.status, 400);
      assert.match(response.body.error, message);
    }
    assert.match((await stack.operator('/api/orders?filterStatus=Done')).body.error, /Invalid filterStatus/);
    assert.match((await stack.operator('/api/orders/x', { method: 'PUT', body: {} })).body.error, /Nothing to update/);
    assert.equal(await metric(stack, 'orders.create'), before);
  });

  it('health: upstream states, store and budgets', async () => {
    await stack.operator('/api/orders');
    const health = healthSchema.parse((await stack.operator('/api/health')).body);
    assert.equal(health.status, 'ok');
    assert.equal(health.store, 'ok');
    assert.equal(health.payments.state, 'ok');
    assert.equal(health.payments.environment, 'sandbox');
    assert.equal(health.orders.state, 'ok');
    assert.equal(health.budgets?.tokenRequests.limit, 10);
    assert.equal(health.budgets?.paymentRequests.limit, 100);
    assert.ok(health.budgets.paymentRequests.used >= 5);
    assert.deepEqual((await http(`${stack.proxy.origin}/healthz`)).body, { ok: true });
  });

  it('a wrong order API key shows on health, not as the service refusing the operator', async () => {
    const own = await startStack({
      reuseSandbox: stack.sandbox,
      env: { KASSA_ORDERS_API_KEY: 'ok_this-key-is-not-issued' },
    });
    try {
      const response = await own.operator('/api/orders');
      assert.equal(response.status, 502);
      assert.match(response.body.error, /refuses Kassa’s credentials/);
      const health = (await own.operator('/api/health')).body;
      assert.equal(health.orders.state, 'rejected');
      assert.equal(health.status, 'degraded');
    } finally {
      await own.stop();
    }
  });
});

describe('proxy: bridge routes', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack({
      sandbox: {
        chains: [
          { name: 'Alpha', chainId: 31337 },
          { name: 'Beta', chainId: 31338 },
          { name: 'Main', chainId: 31339, network: 'main' },
        ],
      },
    });
  });
  after(() => stack.stop());

  it('lists test and main chains with their tokens, cached briefly', async () => {
    const before = await metric(stack, 'reforge.testChains');
    const test = chainListSchema.parse((await stack.browser('/api/bridge/chains?network=test')).body);
    assert.deepEqual(
      test.map((chain) => chain.chainId),
      [31337, 31338],
    );
    assert.deepEqual(Object.keys(test[0]!.tokens).sort(), ['eEUR', 'eGBR', 'eSGD', 'eUSD']);
    assert.equal(test[0]!.tokens.eUSD!.decimals, 18);
    const main = chainListSchema.parse((await stack.browser('/api/bridge/chains?network=main')).body);
    assert.deepEqual(
      main.map((chain) => chain.chainId),
      [31339],
    );
    for (let i = 0; i < 5; i++) await stack.browser('/api/bridge/chains');
    assert.equal((await metric(stack, 'reforge.testChains')) - before, 1, 'one upstream read for six listings');
    assert.equal((await stack.browser('/api/bridge/chains?network=dev')).status, 400);
    assert.deepEqual((await stack.operator('/api/chains?network=main')).body, main, 'operators see the same listing');
  });

  it('prepares the unsigned burn transaction for a transfer', async () => {
    const [source, destination] = stack.sandbox.chains;
    const response = await stack.browser('/api/bridge/prepare', {
      body: {
        sourceAmount: '12.5',
        sourceToken: source!.tokens.eUSD.address,
        destinationToken: destination!.tokens.eUSD.address,
        destinationChainId: destination!.chainId,
      },
    });
    assert.equal(response.status, 200, response.text);
    const tx = Transaction.from(response.body.tx);
    assert.equal(tx.chainId, BigInt(source!.chainId));
    assert.equal(tx.to, source!.tokens.eUSD.address);
    assert.equal(tx.signature, null, 'unsigned');
    const call = new Interface(REFORGE_TOKEN_ABI).parseTransaction({ data: tx.data })!;
    assert.equal(call.name, 'reforge');
    assert.equal(call.args[0], 12_500_000_000_000_000_000n);
    assert.equal(call.args[1], BigInt(destination!.chainId));
  });

  it("passes the service's refusals through, and validates before sending", async () => {
    const [source, destination] = stack.sandbox.chains;
    const same = await stack.browser('/api/bridge/prepare', {
      body: {
        sourceAmount: '1',
        sourceToken: source!.tokens.eUSD.address,
        destinationToken: source!.tokens.eUSD.address,
        destinationChainId: source!.chainId,
      },
    });
    assert.equal(same.status, 400);
    assert.match(same.body.error, /is the source chain/);
    const before = await metric(stack, 'reforge.prepare');
    for (const body of [
      {
        sourceAmount: '-1',
        sourceToken: source!.tokens.eUSD.address,
        destinationToken: destination!.tokens.eUSD.address,
        destinationChainId: destination!.chainId,
      },
      {
        sourceAmount: '1',
        sourceToken: 'eUSD',
        destinationToken: destination!.tokens.eUSD.address,
        destinationChainId: destination!.chainId,
      },
      {
        sourceAmount: '1',
        sourceToken: source!.tokens.eUSD.address,
        destinationToken: destination!.tokens.eUSD.address,
        destinationChainId: destination!.chainId,
        sourceRpcUrl: 'http://169.254.169.254/',
      },
    ]) {
      const response = await stack.browser('/api/bridge/prepare', { body });
      assert.equal(response.status, 400, JSON.stringify(body));
    }
    assert.equal(
      await metric(stack, 'reforge.prepare'),
      before,
      'nothing invalid reaches the service; no RPC URL from a browser either',
    );
  });

  it('refuses any body that carries a private key or key material, and has no execute route', async () => {
    const [source, destination] = stack.sandbox.chains;
    const valid = {
      sourceAmount: '1',
      sourceToken: source!.tokens.eUSD.address,
      destinationToken: destination!.tokens.eUSD.address,
      destinationChainId: destination!.chainId,
    };
    const key = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d';
    for (const body of [
      { ...valid, privateKey: key },
      { ...valid, walletData: { rpcUrl: source!.rpcUrl, privateKey: key } },
      { ...valid, extra: { nested: [{ PRIVATE_KEY: 'x' }] } },
      { ...valid, note: key.slice(2) },
      { ...valid, memo: 'test test test test test test test test test test test junk' },
    ]) {
      const response = await stack.browser('/api/bridge/prepare', { body });
      assert.equal(response.status, 400);
      assert.match(response.body.error, /Private keys must never be sent to Kassa/);
      assert.ok(!response.text.includes(key.slice(2)), 'the key is not echoed');
    }
    for (const path of ['/api/bridge/execute', '/api/bridge/executeReforge', '/api/bridge/executeReforgeAsync']) {
      assert.equal((await stack.browser(path, { body: { tx: '0x02', walletData: {} } })).status, 404, path);
    }
    assert.ok(!stack.logs.some((line) => line.includes(key.slice(2))), 'nor logged');
  });

  it('answers the shop origin only', async () => {
    const preflight = await http(`${stack.proxy.origin}/api/bridge/prepare`, {
      method: 'OPTIONS',
      headers: { Origin: SHOP_ORIGIN, 'Access-Control-Request-Method': 'POST' },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get('access-control-allow-origin'), SHOP_ORIGIN);
    const foreign = await http(`${stack.proxy.origin}/api/bridge/chains`, {
      headers: { Origin: 'https://evil.example' },
    });
    assert.equal(foreign.status, 403);
  });
});
