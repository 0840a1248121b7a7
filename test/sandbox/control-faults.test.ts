import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startSandbox, type Sandbox } from '../../sandbox/server.ts';
import { keySummarySchema } from '../../schemas/sandbox.ts';
import { http } from '../support/http.ts';
import { sandboxClient, validPayment } from '../support/sandbox-client.ts';

describe('sandbox: control API', () => {
  let sandbox: Sandbox;
  let client: ReturnType<typeof sandboxClient>;

  before(async () => {
    sandbox = await startSandbox();
    client = sandboxClient(sandbox);
  });
  after(() => sandbox.stop());

  it('creates keys with their settings and lists them without secrets', async () => {
    const created = await client.control('/keys', {
      environment: 'sandbox',
      webhookUrl: 'https://shop.example/hooks/x',
      name: 'Shop',
      description: 'main shop',
      destination: 'DE89370400440532013000',
      expiresAt: '2099-01-01T00:00:00Z',
    });
    assert.equal(created.status, 201);
    assert.deepEqual(Object.keys(created.body).sort(), ['active', 'clientSecret', 'environment', 'keyId']);
    const summary = keySummarySchema.parse((await client.control(`/keys/${created.body.keyId}`)).body);
    assert.deepEqual(summary, {
      keyId: created.body.keyId,
      name: 'Shop',
      description: 'main shop',
      destination: 'DE89370400440532013000',
      webhookUrl: 'https://shop.example/hooks/x',
      environment: 'sandbox',
      active: true,
      revoked: false,
      expiresAt: '2099-01-01T00:00:00.000Z',
      secrets: 1,
    });
    const list = await client.control('/keys');
    assert.ok(list.body.length >= 2);
    assert.ok(!list.text.includes(created.body.clientSecret), 'secrets are never shown again');
  });

  it('changes webhook URL, name, description and expiration; destination only on sandbox keys', async () => {
    const sandboxKey = (await client.control('/keys', {})).body;
    const changed = await client.control(
      `/keys/${sandboxKey.keyId}`,
      { name: 'Corner shop', description: 'new', destination: 'NL91ABNA0417164300' },
      'PATCH',
    );
    assert.equal(changed.status, 200);
    assert.equal(changed.body.destination, 'NL91ABNA0417164300');
    assert.equal(changed.body.name, 'Corner shop');
    const live = (await client.control('/keys', { environment: 'live' })).body;
    const refused = await client.control(`/keys/${live.keyId}`, { destination: 'NL91ABNA0417164300' }, 'PATCH');
    assert.equal(refused.status, 400);
    assert.match(refused.body.error, /destination cannot be changed on a live key/);
    assert.equal(
      (await client.control(`/keys/${live.keyId}`, { colour: 'x' }, 'PATCH')).body.error,
      'Unknown field: colour',
    );
    assert.equal((await client.control(`/keys/${live.keyId}`, {}, 'PATCH')).status, 400);
    assert.equal((await client.control('/keys/key_nope', { description: 'x' }, 'PATCH')).status, 404);
    assert.equal((await client.control('/keys', { environment: 'staging' })).status, 400);
  });

  it('refuses to approve a revoked key', async () => {
    const live = (await client.control('/keys', { environment: 'live' })).body;
    await client.control(`/keys/${live.keyId}/revoke`, {});
    assert.equal((await client.control(`/keys/${live.keyId}/approve`, {})).status, 400);
  });

  it('hands out order-service API keys that the order service accepts', async () => {
    const issued = await client.control('/order-keys', {});
    assert.equal(issued.status, 201);
    assert.equal((await client.orders('orders', { apiKey: issued.body.apiKey })).status, 200);
  });

  it('answers unknown paths with a JSON 404', async () => {
    const response = await http(`${sandbox.origin}/nowhere`);
    assert.equal(response.status, 404);
    assert.match(response.body.error, /Not found/);
  });

  it('refuses bodies over 1 MB with 413', async () => {
    const response = await http(`${sandbox.pay}/v1/auth/token`, {
      raw: JSON.stringify({ pad: 'x'.repeat(1_100_000) }),
      headers: { 'Content-Type': 'application/json' },
    });
    assert.equal(response.status, 413);
  });
});

describe('sandbox: injected upstream faults', () => {
  let sandbox: Sandbox;
  let client: ReturnType<typeof sandboxClient>;
  let token: string;

  before(async () => {
    sandbox = await startSandbox();
    client = sandboxClient(sandbox);
    token = await client.token();
  });
  after(() => sandbox.stop());

  it('answers 429 with Retry-After for the next `times` requests, then recovers', async () => {
    await client.control('/faults', { service: 'pay', kind: '429', times: 2 });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await client.initiate(token, validPayment())).status);
    assert.deepEqual(statuses, [429, 429, 201]);
  });

  it('answers 500 with the generic processing error', async () => {
    await client.control('/faults', { service: 'pay', kind: '500', path: '/v1/payments/initiate' });
    const response = await client.initiate(token, validPayment());
    assert.equal(response.status, 500);
    assert.deepEqual(response.body, { error: 'An error occurred while processing the payment' });
  });

  it('holds the answer back for a slow fault', async () => {
    await client.control('/faults', { service: 'pay', kind: 'slow', delayMs: 400 });
    const started = Date.now();
    const response = await client.initiate(token, validPayment());
    assert.equal(response.status, 201);
    assert.ok(Date.now() - started >= 390);
  });

  it('resets the connection', async () => {
    await client.control('/faults', { service: 'pay', kind: 'reset' });
    await assert.rejects(client.initiate(token, validPayment()), /fetch failed/);
    assert.equal((await client.initiate(token, validPayment())).status, 201, 'the server lives on');
  });

  it('answers truncated JSON for a malformed fault', async () => {
    await client.control('/faults', { service: 'orders', kind: 'malformed' });
    const response = await client.orders('orders');
    assert.equal(response.status, 200);
    assert.throws(() => JSON.parse(response.text));
  });

  it('with stage "after", the request takes effect and only its answer is lost', async () => {
    await client.control('/faults', { service: 'orders', kind: 'reset', stage: 'after', path: '/orders' });
    const order = {
      customerName: 'Ada',
      chainId: 31337,
      amount: '5',
      mintWallet: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      customerOrder: 'after-1',
      stableCoin: 'eUSD',
    };
    await assert.rejects(client.orders('orders', { body: order }));
    const list = (await client.orders('orders')).body as Array<{ customerOrder: string }>;
    assert.ok(
      list.some((entry) => entry.customerOrder === 'after-1'),
      'the order was created although the answer was lost',
    );
  });

  it('applies only to its service and path; lists and clears pending faults', async () => {
    await client.control('/faults', { service: 'reforge', kind: '500', times: 5 });
    await client.control('/faults', { service: 'pay', kind: '500', path: '/v1/payments/initiate', times: 5 });
    assert.equal(
      (await client.read(token, crypto.randomUUID())).status,
      404,
      'another path of the service is unaffected',
    );
    assert.equal((await client.orders('orders')).status, 200, 'another service is unaffected');
    const pending = (await client.control('/faults')).body as Array<{ service: string; remaining: number }>;
    assert.deepEqual(
      pending.map(({ service, remaining }) => ({ service, remaining })),
      [
        { service: 'reforge', remaining: 5 },
        { service: 'pay', remaining: 5 },
      ],
    );
    await client.control('/faults', undefined, 'DELETE');
    assert.deepEqual((await client.control('/faults')).body, []);
    assert.equal((await client.initiate(token, validPayment())).status, 201);
  });

  it('applies only to its method: a slow read leaves the write on the same path alone', async () => {
    const created = await client.orders('orders', {
      body: {
        customerName: 'Ada',
        chainId: 31337,
        amount: '5',
        mintWallet: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
        customerOrder: `method-${Date.now()}`,
        stableCoin: 'eUSD',
      },
    });
    const path = `/orders/${created.body.orderId as string}`;
    await client.control('/faults', { service: 'orders', kind: '500', method: 'GET', path });
    const written = await client.orders(path.slice(1), { method: 'PUT', body: { amount: '6' } });
    assert.equal(written.status, 200, 'the write passes');
    assert.equal((await client.orders(path.slice(1))).status, 500, 'the read takes the fault');
    assert.equal((await client.orders(path.slice(1))).status, 200, 'once');
  });

  it('rejects malformed fault requests', async () => {
    for (const body of [
      { service: 'bank', kind: '500' },
      { service: 'pay', kind: '418' },
      { service: 'pay', kind: '500', times: 0 },
      { service: 'pay', kind: '500', path: 'v1' },
      { service: 'pay', kind: '500', method: 'get' },
    ]) {
      const response = await client.control('/faults', body);
      assert.equal(response.status, 400, JSON.stringify(body));
      assert.equal(typeof response.body.error, 'string');
    }
  });
});
