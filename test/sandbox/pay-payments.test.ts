import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startSandbox, type Sandbox } from '../../sandbox/server.ts';
import { initiateResponseSchema, paymentRecordSchema } from '../../schemas/pay.ts';
import { http } from '../support/http.ts';
import { sandboxClient, validPayment } from '../support/sandbox-client.ts';

describe('sandbox: payments', () => {
  let sandbox: Sandbox;
  let client: ReturnType<typeof sandboxClient>;
  let token: string;

  before(async () => {
    sandbox = await startSandbox();
    client = sandboxClient(sandbox);
    token = await client.token();
  });
  after(() => sandbox.stop());

  it('initiates a payment with every response field of the seed, and reads it back', async () => {
    const created = await client.initiate(token, validPayment());
    assert.equal(created.status, 201);
    const payment = initiateResponseSchema.strict().parse(created.body);
    assert.equal(payment.status, 'PENDING');
    assert.equal(payment.amount, 100.5);
    assert.equal(payment.currencyCode, 'EUR');
    assert.equal(payment.reference, 'ORDER-42');
    assert.equal(payment.flowUrl, `${sandbox.pay}/flow/${payment.transactionId}`);
    assert.ok(payment.endToEndId.length <= 35, 'an end-to-end id fits SEPA and FPS (35 characters)');

    const read = await client.read(token, payment.transactionId);
    assert.equal(read.status, 200);
    const record = paymentRecordSchema.strict().parse(read.body);
    assert.equal(record.networkPaymentId, payment.networkPaymentId);
    assert.equal(record.redirectUrl, validPayment().redirectUrl);
    assert.equal(record.metadata, validPayment().metadata, 'metadata comes back unchanged');
    assert.equal(record.networkStatus, 'INITIATED');
    assert.equal(record.providerId, null);
    assert.equal(record.paymentRail, null);
    assert.equal(record.completedTimestamp, null);
    assert.equal(record.initiationTimestamp, payment.initiationTimestamp);
  });

  it('accepts GBP and omits metadata when none is sent', async () => {
    const created = await client.initiate(
      token,
      validPayment({ currencyCode: 'GBP', metadata: undefined, amount: 0.01 }),
    );
    assert.equal(created.status, 201);
    const record = (await client.read(token, created.body.transactionId)).body;
    assert.equal(record.currencyCode, 'GBP');
    assert.equal(record.metadata, null);
  });

  const invalid: Array<[string, unknown, string | RegExp]> = [
    ['an unknown currency', validPayment({ currencyCode: 'XYZ' }), 'Invalid currencyCode: XYZ'],
    ['a currency the service does not settle', validPayment({ currencyCode: 'USD' }), 'Invalid currencyCode: USD'],
    ['a missing currency', validPayment({ currencyCode: undefined }), 'currencyCode is required'],
    ['a zero amount', validPayment({ amount: 0 }), /amount must be at least 0.01/],
    ['a negative amount', validPayment({ amount: -5 }), /amount must be a positive decimal/],
    ['three decimal places', validPayment({ amount: 1.005 }), /at most 2 decimal places/],
    ['an amount over the limit', validPayment({ amount: 1_000_000.01 }), /at most 1000000/],
    ['an amount as a string', validPayment({ amount: '100.50' }), 'amount must be a number'],
    ['a missing reference', validPayment({ reference: undefined }), 'reference is required'],
    ['an empty reference', validPayment({ reference: '' }), 'reference must not be empty'],
    ['a long reference', validPayment({ reference: 'R'.repeat(36) }), /at most 35 characters/],
    ['a reference with other characters', validPayment({ reference: 'order #42' }), /reference may hold only/],
    [
      'a plain-http redirect off loopback',
      validPayment({ redirectUrl: 'http://shop.example/return' }),
      /redirectUrl must be an absolute https URL/,
    ],
    ['a relative redirect', validPayment({ redirectUrl: '/return' }), /redirectUrl must be an absolute https URL/],
    ['metadata that is not a string', validPayment({ metadata: { cart: 1 } }), 'metadata must be a string'],
    ['metadata over 4096 characters', validPayment({ metadata: 'm'.repeat(4097) }), /metadata must be at most 4096/],
    ['a body that is an array', [validPayment()], 'Request body must be a JSON object'],
  ];
  for (const [what, body, message] of invalid) {
    it(`answers 400 with a human-readable error for ${what}`, async () => {
      const response = await client.initiate(token, body as Record<string, unknown>);
      assert.equal(response.status, 400);
      assert.deepEqual(Object.keys(response.body), ['error']);
      if (typeof message === 'string') assert.equal(response.body.error, message);
      else assert.match(response.body.error, message);
    });
  }

  it('answers 400 for a body that is not JSON', async () => {
    const response = await http(`${sandbox.pay}/v1/payments/initiate`, {
      raw: '{"amount":',
      headers: { Authorization: `Bearer ${token}` },
    });
    assert.equal(response.status, 400);
    assert.equal(response.body.error, 'Request body must be valid JSON');
  });

  it('requires a valid, unexpired bearer token on both endpoints', async () => {
    const url = `${sandbox.pay}/v1/payments/initiate`;
    const missing = await http(url, { body: validPayment() });
    assert.equal(missing.status, 401);
    assert.match(missing.body.error, /Missing bearer token/);
    const forged = await http(url, {
      body: validPayment(),
      headers: { Authorization: `Bearer ${token.slice(0, -4)}AAAA` },
    });
    assert.equal(forged.status, 401);
    assert.equal(forged.body.error, 'Invalid access token');
    const garbage = await http(`${sandbox.pay}/v1/payments/${crypto.randomUUID()}`, {
      headers: { Authorization: 'Bearer not.a.jwt' },
    });
    assert.equal(garbage.status, 401);
  });

  it('refuses a token once its 60 minutes are over', async () => {
    const own = await startSandbox();
    const ownClient = sandboxClient(own);
    try {
      const fresh = await ownClient.token();
      assert.equal((await ownClient.initiate(fresh, validPayment())).status, 201);
      await ownClient.control('/clock', { advanceSeconds: 3600 });
      const expired = await ownClient.initiate(fresh, validPayment());
      assert.equal(expired.status, 401);
      assert.equal(expired.body.error, 'Access token expired');
    } finally {
      await own.stop();
    }
  });

  it('lets a key read only its own payments: others and unknown ids are 404', async () => {
    const created = await client.initiate(token, validPayment());
    const other = (await client.control('/keys', {})).body;
    const otherToken = await client.token(other.clientSecret);
    assert.equal((await client.read(otherToken, created.body.transactionId)).status, 404);
    const unknown = await client.read(token, crypto.randomUUID());
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error, 'Payment not found');
    assert.equal((await client.read(token, 'not-a-uuid')).status, 404);
  });

  it('allows 100 payment requests per minute per key across initiate and read, then 429', async () => {
    const key = (await client.control('/keys', {})).body;
    const keyToken = await client.token(key.clientSecret);
    const first = await client.initiate(keyToken, validPayment());
    const statuses = [first.status];
    for (let i = 0; i < 99; i++) {
      const response =
        i % 2 ? await client.initiate(keyToken, validPayment()) : await client.read(keyToken, first.body.transactionId);
      statuses.push(response.status);
    }
    assert.ok(
      statuses.every((status) => status === 200 || status === 201),
      'the first 100 pass',
    );
    const limited = await client.read(keyToken, first.body.transactionId);
    assert.equal(limited.status, 429);
    assert.ok(Number(limited.headers.get('retry-after')) >= 1);
    assert.equal((await client.initiate(keyToken, validPayment())).status, 429);
    // The default key's budget is untouched.
    assert.equal((await client.read(token, first.body.transactionId)).status, 404);
    await client.control('/clock', { advanceSeconds: 60 });
    assert.equal((await client.read(keyToken, first.body.transactionId)).status, 200);
  });

  it('counts every request each operation received', async () => {
    const own = await startSandbox();
    const ownClient = sandboxClient(own);
    try {
      const fresh = await ownClient.token();
      const created = await ownClient.initiate(fresh, validPayment());
      await ownClient.read(fresh, created.body.transactionId);
      await ownClient.read(fresh, created.body.transactionId);
      assert.deepEqual((await ownClient.control('/metrics')).body, {
        'pay.token': 1,
        'pay.initiate': 1,
        'pay.read': 2,
      });
      await ownClient.control('/metrics', undefined, 'DELETE');
      assert.deepEqual((await ownClient.control('/metrics')).body, {});
    } finally {
      await own.stop();
    }
  });
});
