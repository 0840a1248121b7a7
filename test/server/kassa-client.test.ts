/**
 * kassa/server's client against a real proxy and emulator on loopback: checkouts created and read
 * back typed, and every way a call can fail arrives as a KassaError with the proxy's own words.
 */
import assert from 'node:assert/strict';
import { createServer, type AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { merchantCheckoutSchema } from '../../schemas/proxy-api.ts';
import { createKassaClient, KassaError } from '../../server/index.ts';
import { http } from '../support/http.ts';
import { eventually, startStack, type Stack } from '../support/stack.ts';

async function rejectsWith(promise: Promise<unknown>, status: number, message: RegExp): Promise<KassaError> {
  const error = await promise.then(
    () => assert.fail('expected a KassaError'),
    (thrown: unknown) => thrown,
  );
  assert.ok(error instanceof KassaError, `not a KassaError: ${String(error)}`);
  assert.equal(error.status, status, error.message);
  assert.match(error.message, message);
  return error;
}

describe('createKassaClient (kassa/server) against a real proxy', () => {
  let stack: Stack;
  const client = () => createKassaClient({ proxyUrl: `${stack.proxy.origin}/`, merchantKey: stack.config.merchantKey });

  before(async () => {
    stack = await startStack({ sandbox: { settlementDelayMs: 0 } });
  });
  after(() => stack.stop());

  it('creates a checkout (the amount decided on the server) and reads it back with its metadata', async () => {
    const created = await client().checkouts.create(
      { amount: '19.99', currencyCode: 'EUR', reference: 'ORDER-CLIENT-1', metadata: { cart: ['mug'] } },
      { idempotencyKey: 'order-client-1-attempt' },
    );
    assert.doesNotThrow(() => merchantCheckoutSchema.parse(created));
    assert.equal(created.amount, '19.99');
    assert.equal(created.state, 'open');
    assert.deepEqual(created.metadata, { cart: ['mug'] });
    assert.equal(created.paidAt, null);
    const read = await client().checkouts.get(created.checkoutId);
    assert.deepEqual(read, created);
  });

  it('a retry with the same idempotencyKey gets the same checkout; another body under it is refused', async () => {
    const request = { amount: '12.00', currencyCode: 'EUR', reference: 'ORDER-RETRY' };
    const key = `order-retry-${Date.now()}`;
    const first = await client().checkouts.create(request, { idempotencyKey: key });
    const again = await client().checkouts.create(request, { idempotencyKey: key });
    assert.equal(again.checkoutId, first.checkoutId);
    await rejectsWith(client().checkouts.create({ ...request, amount: '13.00' }, { idempotencyKey: key }), 422, /./);
  });

  it('sees the checkout paid once the customer paid it', async () => {
    const { checkoutId } = await client().checkouts.create({ amount: 5, currencyCode: 'EUR', reference: 'ORDER-2' });
    const payment = await stack.pay(checkoutId);
    assert.equal(payment.status, 201, payment.text);
    // The customer authorises on the bank page.
    await http(payment.body.flowUrl, {
      raw: new URLSearchParams({ action: 'authorise', providerId: 'bank_xyz' }).toString(),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    const paid = await eventually(async () => {
      const checkout = await client().checkouts.get(checkoutId);
      return checkout.state === 'paid' ? checkout : undefined;
    });
    assert.equal(paid.transactionId, payment.body.transactionId);
    assert.ok(paid.paidAt);
  });

  it("a refused request: the proxy's status, error and details", async () => {
    const invalid = await rejectsWith(
      client().checkouts.create({ amount: '-1', currencyCode: 'EUR', reference: 'ORDER-3' }),
      400,
      /amount/,
    );
    assert.ok(invalid.message.length < 300);
    await rejectsWith(client().checkouts.get('chk_unknown'), 404, /Unknown checkout/);
    const wrongKey = createKassaClient({ proxyUrl: stack.proxy.origin, merchantKey: 'mk_wrong_wrong_wrong' });
    await rejectsWith(wrongKey.checkouts.get('chk_unknown'), 401, /KASSA_MERCHANT_KEY/);
    await rejectsWith(wrongKey.checkouts.create({ amount: '1', currencyCode: 'EUR', reference: 'ORDER-4' }), 401, /./);
    await rejectsWith(
      client().checkouts.create({ amount: '1', currencyCode: 'EUR', reference: 'R' }, { idempotencyKey: 'short' }),
      0,
      /idempotencyKey/,
    );
  });

  it('no proxy there, or something else answering: status 0, or a clear mismatch', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const nobody = createKassaClient({ proxyUrl: `http://127.0.0.1:${port}`, merchantKey: 'mk_x' });
    await rejectsWith(nobody.checkouts.get('chk_1'), 0, /Could not reach/);

    // Something other than the proxy answers, with JSON that is not a checkout.
    const elsewhere = createKassaClient({
      proxyUrl: stack.sandbox.origin,
      merchantKey: 'mk_x',
      fetch: () => Promise.resolve(Response.json({ hello: 'world' })),
    });
    await rejectsWith(elsewhere.checkouts.get('chk_1'), 200, /other than what it documents/);
    const slow = createKassaClient({
      proxyUrl: stack.proxy.origin,
      merchantKey: 'mk_x',
      timeoutMs: 50,
      fetch: (_url, init) =>
        new Promise((_resolve, reject) =>
          init?.signal?.addEventListener('abort', () => reject(init.signal!.reason as Error)),
        ),
    });
    await rejectsWith(slow.checkouts.get('chk_1'), 0, /no answer in 50 ms/);
    assert.throws(() => createKassaClient({ proxyUrl: 'pay.example.com', merchantKey: 'mk' }), TypeError);
    assert.throws(() => createKassaClient({ proxyUrl: 'https://pay.example.com', merchantKey: '' }), TypeError);
  });
});
