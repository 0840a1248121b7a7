import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { startSandbox, type Sandbox } from '../../sandbox/server.ts';
import {
  ORDER_STATUSES,
  ORDER_TRANSITIONS,
  orderListSchema,
  orderSchema,
  updateOrderResponseSchema,
} from '../../schemas/orders.ts';
import { http } from '../support/http.ts';
import { sandboxClient } from '../support/sandbox-client.ts';

const WALLET = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8';
let serial = 0;
const newOrder = (overrides: Record<string, unknown> = {}) => ({
  customerName: 'Ada Lovelace',
  chainId: 31337,
  amount: '250.75',
  mintWallet: WALLET,
  customerOrder: `order-${++serial}`,
  stableCoin: 'eEUR',
  ...overrides,
});

describe('sandbox: stablecoin orders', () => {
  let sandbox: Sandbox;
  let client: ReturnType<typeof sandboxClient>;
  const create = async (overrides: Record<string, unknown> = {}) => {
    const response = await client.orders('orders', { body: newOrder(overrides) });
    assert.equal(response.status, 201, response.text);
    return response.body.orderId as string;
  };

  before(async () => {
    // Orders stay where these tests put them: no issuer processes them.
    sandbox = await startSandbox({ mintDelayMs: null });
    client = sandboxClient(sandbox);
  });
  after(() => sandbox.stop());

  it('creates an order: 201 {message, orderId}, read back with every field', async () => {
    const before = Date.now();
    const response = await client.orders('orders', {
      body: newOrder({ customerOrder: 'first', amount: 12, chainId: '31338', mintWallet: WALLET.toLowerCase() }),
    });
    assert.equal(response.status, 201);
    assert.deepEqual(Object.keys(response.body).sort(), ['message', 'orderId']);
    assert.equal(response.body.message, 'Order created successfully');
    const order = orderSchema.strict().parse((await client.orders(`orders/${response.body.orderId}`)).body);
    assert.equal(order.orderId, response.body.orderId);
    assert.equal(order.customerName, 'Ada Lovelace');
    assert.equal(order.customerOrder, 'first');
    assert.equal(order.amount, '12', 'amount is returned as a string');
    assert.equal(order.chainId, 31338);
    assert.equal(order.mintWallet, WALLET, 'the wallet comes back in checksum form');
    assert.equal(order.orderStatus, 'New');
    assert.ok(order.orderDate >= before && order.orderDate <= Date.now(), 'epoch milliseconds');
    assert.equal(order.lastUpdateTime, order.orderDate);
  });

  it('keeps customerOrder unique', async () => {
    await create({ customerOrder: 'unique-1' });
    const again = await client.orders('orders', { body: newOrder({ customerOrder: 'unique-1' }) });
    assert.equal(again.status, 400);
    assert.equal(again.body.error, 'customerOrder already exists: unique-1');
  });

  const invalid: Array<[string, Record<string, unknown>, RegExp]> = [
    [
      'an unknown stablecoin',
      { stableCoin: 'eJPY' },
      /Invalid stableCoin: eJPY \(expected one of eUSD, eEUR, eGBR, eSGD\)/,
    ],
    ['a missing stablecoin', { stableCoin: undefined }, /stableCoin is required/],
    ['a zero amount', { amount: '0' }, /amount must be a positive decimal/],
    ['a negative amount', { amount: -1 }, /amount must be a positive decimal/],
    ['an amount with an exponent', { amount: '1e5' }, /amount must be a positive decimal/],
    ['an amount of 19 decimals', { amount: '0.0000000000000000001' }, /at most 18 decimal places/],
    ['an amount over the limit', { amount: '1000000000.1' }, /amount must be at most 1000000000/],
    ['an amount that is not a number', { amount: true }, /amount must be a decimal string or number/],
    ['a wallet that is not an address', { mintWallet: '0x1234' }, /Invalid mintWallet/],
    ['a wallet with a bad checksum', { mintWallet: '0x70997970C51812dc3A010C7d01b50e0d17dc79c8' }, /valid checksum/],
    ['a missing wallet', { mintWallet: undefined }, /mintWallet is required/],
    ['a chain id of zero', { chainId: 0 }, /chainId must be a positive integer/],
    ['a fractional chain id', { chainId: 1.5 }, /chainId must be a positive integer/],
    ['a missing customer name', { customerName: undefined }, /customerName is required/],
    ['a blank customer name', { customerName: '   ' }, /customerName must not be empty/],
    ['a long customer order', { customerOrder: 'x'.repeat(65) }, /customerOrder must be at most 64 characters/],
    ['control characters', { customerName: 'Ada\u0000' }, /must not contain control characters/],
    ['an unknown field', { discount: 5 }, /Unknown field: discount/],
  ];
  for (const [what, overrides, message] of invalid) {
    it(`refuses ${what} with 400 {error} naming the problem`, async () => {
      const response = await client.orders('orders', { body: newOrder(overrides) });
      assert.equal(response.status, 400);
      assert.deepEqual(Object.keys(response.body), ['error']);
      assert.match(response.body.error, message);
    });
  }

  it('refuses bodies that are not a JSON object', async () => {
    const raw = await http(`${sandbox.orders}orders`, {
      raw: 'nope',
      headers: { 'x-api-key': sandbox.ordersApiKey, 'Content-Type': 'application/json' },
    });
    assert.equal(raw.status, 400);
    assert.equal(raw.body.error, 'Request body must be valid JSON');
    assert.equal((await client.orders('orders', { body: [1] })).body.error, 'Request body must be a JSON object');
  });

  it('answers 400 "Order not found" for an unknown id on get, update and delete', async () => {
    for (const [path, method, body] of [
      ['orders/nope', 'GET', undefined],
      ['orders/nope', 'PUT', { orderStatus: 'Processing' }],
      ['orders/nope', 'DELETE', undefined],
    ] as const) {
      const response = await client.orders(path, { method, body });
      assert.equal(response.status, 400, `${method} ${path}`);
      assert.deepEqual(response.body, { error: 'Order not found' });
    }
  });

  it('stops a missing or wrong x-api-key at the gateway: 403 {message: "Forbidden"}', async () => {
    for (const apiKey of [null, 'ok_wrong']) {
      const response = await client.orders('orders', { apiKey });
      assert.equal(response.status, 403);
      assert.deepEqual(response.body, { message: 'Forbidden' });
    }
  });

  describe('listing', () => {
    beforeEach(async () => {
      for (const order of (await client.orders('orders')).body) {
        if (order.orderStatus !== 'Processing') await client.orders(`orders/${order.orderId}`, { method: 'DELETE' });
      }
    });

    it('lists every order oldest first, and filters by status', async () => {
      const a = await create();
      const b = await create();
      const c = await create();
      await client.orders(`orders/${b}`, { method: 'PUT', body: { orderStatus: 'Processing' } });
      await client.orders(`orders/${c}`, { method: 'PUT', body: { orderStatus: 'Cancelled' } });
      const all = orderListSchema
        .parse((await client.orders('orders')).body)
        .filter((order) => [a, b, c].includes(order.orderId));
      assert.deepEqual(
        all.map((order) => order.orderId),
        [a, b, c],
      );
      const processing = orderListSchema.parse((await client.orders('orders?filterStatus=Processing')).body);
      assert.ok(processing.some((order) => order.orderId === b));
      assert.ok(processing.every((order) => order.orderStatus === 'Processing'));
      assert.deepEqual(
        orderListSchema.parse((await client.orders('orders?filterStatus=New')).body).map((order) => order.orderId),
        [a],
      );
      const bad = await client.orders('orders?filterStatus=Pending');
      assert.equal(bad.status, 400);
      assert.match(bad.body.error, /Invalid filterStatus: Pending/);
    });
  });

  it('updates amount and status: {message, updatedAttributes: {amount, orderStatus, lastUpdateTime}}', async () => {
    const id = await create();
    const created = (await client.orders(`orders/${id}`)).body;
    await new Promise((resolve) => setTimeout(resolve, 5));
    const response = await client.orders(`orders/${id}`, {
      method: 'PUT',
      body: { amount: 99.5, orderStatus: 'Processing' },
    });
    assert.equal(response.status, 200);
    const { message, updatedAttributes } = updateOrderResponseSchema.strict().parse(response.body);
    assert.equal(message, 'Order updated successfully');
    assert.equal(updatedAttributes.amount, '99.5');
    assert.equal(updatedAttributes.orderStatus, 'Processing');
    assert.ok(updatedAttributes.lastUpdateTime > created.lastUpdateTime);
    const order = (await client.orders(`orders/${id}`)).body;
    assert.equal(order.amount, '99.5');
    assert.equal(order.lastUpdateTime, updatedAttributes.lastUpdateTime);
    assert.equal(order.orderDate, created.orderDate);
  });

  it('enforces the documented transition table for every pair of statuses', async () => {
    const path: Record<string, string[]> = {
      New: [],
      Processing: ['Processing'],
      Completed: ['Processing', 'Completed'],
      Failed: ['Processing', 'Failed'],
      Cancelled: ['Cancelled'],
    };
    for (const from of ORDER_STATUSES) {
      for (const to of ORDER_STATUSES) {
        const id = await create();
        for (const step of path[from]!)
          await client.orders(`orders/${id}`, { method: 'PUT', body: { orderStatus: step } });
        const response = await client.orders(`orders/${id}`, { method: 'PUT', body: { orderStatus: to } });
        const allowed = from === to || ORDER_TRANSITIONS[from].includes(to);
        assert.equal(response.status, allowed ? 200 : 400, `${from} -> ${to}`);
        if (!allowed) assert.match(response.body.error, new RegExp(`Invalid orderStatus transition: ${from} -> ${to}`));
      }
    }
  });

  it('changes the amount only while the order is New, and refuses empty or unknown updates', async () => {
    const id = await create();
    await client.orders(`orders/${id}`, { method: 'PUT', body: { orderStatus: 'Processing' } });
    const late = await client.orders(`orders/${id}`, { method: 'PUT', body: { amount: '1' } });
    assert.equal(late.status, 400);
    assert.match(late.body.error, /amount can change only while the order is New; it is Processing/);
    assert.match((await client.orders(`orders/${id}`, { method: 'PUT', body: {} })).body.error, /Nothing to update/);
    assert.match(
      (await client.orders(`orders/${id}`, { method: 'PUT', body: { orderStatus: 'Shipped' } })).body.error,
      /Invalid orderStatus: Shipped/,
    );
    assert.match(
      (await client.orders(`orders/${id}`, { method: 'PUT', body: { customerName: 'x' } })).body.error,
      /Unknown field: customerName/,
    );
  });

  it('deletes with the orderId in the path, the query or the body', async () => {
    const [inPath, inQuery, inBody] = [await create(), await create(), await create()];
    for (const [path, body] of [
      [`orders/${inPath}`, undefined],
      [`orders?orderId=${inQuery}`, undefined],
      ['orders', { orderId: inBody }],
    ] as const) {
      const response = await client.orders(path, { method: 'DELETE', body });
      assert.equal(response.status, 200, path);
      assert.deepEqual(response.body, { message: 'Order deleted successfully' });
    }
    for (const id of [inPath, inQuery, inBody]) assert.equal((await client.orders(`orders/${id}`)).status, 400);
  });

  it('refuses deletes without an id, with two different ids, or of a Processing order', async () => {
    const a = await create();
    const b = await create();
    assert.match((await client.orders('orders', { method: 'DELETE' })).body.error, /orderId is required/);
    assert.match(
      (await client.orders(`orders/${a}?orderId=${b}`, { method: 'DELETE' })).body.error,
      /more than once with different values/,
    );
    assert.equal(
      (await client.orders(`orders/${a}?orderId=${a}`, { method: 'DELETE', body: { orderId: a } })).status,
      200,
      'the same id twice is fine',
    );
    await client.orders(`orders/${b}`, { method: 'PUT', body: { orderStatus: 'Processing' } });
    const busy = await client.orders(`orders/${b}`, { method: 'DELETE' });
    assert.equal(busy.status, 400);
    assert.equal(busy.body.error, 'Order is Processing and cannot be deleted');
  });
});
