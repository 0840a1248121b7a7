import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { FUZZ_RUNS as RUNS, rawBody } from '../support/arbitraries.ts';
import { startSandbox, type Sandbox } from '../../sandbox/server.ts';
import { http } from '../support/http.ts';
import { sandboxClient, validPayment } from '../support/sandbox-client.ts';

/**
 * Property: no body, field value, header or path makes the emulator answer 5xx or die. Bodies are
 * arbitrary JSON, raw text, and valid bodies with one field replaced by an arbitrary value, which
 * reaches much deeper into validation than random JSON alone.
 */
describe('sandbox: fast-check, no input gets a 5xx or crashes the emulator', () => {
  let sandbox: Sandbox;
  let client: ReturnType<typeof sandboxClient>;
  let token: string;
  let issued = 0;

  const send = async (path: string, method: string, raw: string | undefined, headers: Record<string, string> = {}) => {
    const response = await http(`${sandbox.origin}${path}`, {
      method,
      raw,
      headers: { 'Content-Type': 'application/json', ...headers },
    });
    assert.ok(
      response.status < 500,
      `${method} ${path} with ${raw?.slice(0, 200)} answered ${response.status}: ${response.text.slice(0, 200)}`,
    );
    if (response.status >= 400 && (response.headers.get('content-type') ?? '').includes('json')) {
      assert.ok(
        typeof response.body.error === 'string' || typeof response.body.message === 'string',
        `error body: ${response.text}`,
      );
    }
    return response;
  };
  // Keeps the fuzzing inside the per-minute budgets: each call moves the sandbox clock a second on.
  const tick = async () => {
    await client.control('/clock', { advanceSeconds: 1 });
    if (++issued % 1800 === 0) token = await client.token();
  };

  before(async () => {
    sandbox = await startSandbox({ settlementDelayMs: 0, mintDelayMs: null });
    client = sandboxClient(sandbox);
    token = await client.token();
  });
  after(async () => {
    try {
      // The emulator still answers properly after everything above.
      assert.equal((await client.initiate(await client.token(), validPayment())).status, 201);
    } finally {
      await sandbox.stop();
    }
  });

  it('POST /pay/v1/auth/token', async () => {
    await fc.assert(
      fc.asyncProperty(rawBody({ grant_type: 'client_credentials', client_secret: 'cs_sandbox_x' }), async (raw) => {
        await send('/pay/v1/auth/token', 'POST', raw);
        await tick();
      }),
      { numRuns: RUNS },
    );
  });

  it('POST /pay/v1/payments/initiate', async () => {
    await fc.assert(
      fc.asyncProperty(rawBody(validPayment()), async (raw) => {
        await send('/pay/v1/payments/initiate', 'POST', raw, { Authorization: `Bearer ${token}` });
        await tick();
      }),
      { numRuns: RUNS },
    );
  });

  it('GET /pay/v1/payments/{id} and Authorization headers', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string(),
        fc.oneof(fc.string(), fc.constant(`Bearer ${'a'.repeat(20)}`)),
        async (id, authorization) => {
          const safeHeader = authorization.replace(/[^\t\x20-\x7e]/g, '');
          await send(`/pay/v1/payments/${encodeURIComponent(id)}`, 'GET', undefined, { Authorization: safeHeader });
          await tick();
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('the flow page, with any form', async () => {
    const payment = (await client.initiate(token, validPayment())).body;
    await fc.assert(
      fc.asyncProperty(fc.dictionary(fc.constantFrom('action', 'providerId', 'x'), fc.string()), async (form) => {
        const response = await http(payment.flowUrl, {
          raw: new URLSearchParams(form).toString(),
          headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        });
        assert.ok(response.status < 500, `flow answered ${response.status}`);
      }),
      { numRuns: RUNS },
    );
  });

  const order = {
    customerName: 'Ada',
    chainId: 31337,
    amount: '5',
    mintWallet: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
    customerOrder: 'o',
    stableCoin: 'eUSD',
  };

  it('POST /stablecoin/v1/orders', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(rawBody({ ...order, customerOrder: 'fuzz' }), async (raw) => {
        // A fresh customerOrder each run, so that uniqueness does not mask the field under test.
        await send('/stablecoin/v1/orders', 'POST', raw.replace('"fuzz"', `"fuzz-${n++}"`), {
          'x-api-key': sandbox.ordersApiKey,
        });
      }),
      { numRuns: RUNS },
    );
  });

  it('PUT, GET and DELETE /stablecoin/v1/orders/{id}, and filterStatus', async () => {
    const created = await client.orders('orders', { body: { ...order, customerOrder: 'fuzz-target' } });
    const id = created.body.orderId as string;
    await fc.assert(
      fc.asyncProperty(
        rawBody({ amount: '2', orderStatus: 'Processing' }),
        fc.string(),
        fc.string(),
        async (raw, filter, otherId) => {
          const key = { 'x-api-key': sandbox.ordersApiKey };
          await send(`/stablecoin/v1/orders/${id}`, 'PUT', raw, key);
          await send(`/stablecoin/v1/orders?filterStatus=${encodeURIComponent(filter)}`, 'GET', undefined, key);
          await send(`/stablecoin/v1/orders/${encodeURIComponent(otherId) || 'x'}`, 'GET', undefined, key);
          await send(`/stablecoin/v1/orders?orderId=${encodeURIComponent(otherId)}`, 'DELETE', raw, key);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('every control route', async () => {
    // Key changes go to a key of their own: the ready key must keep working for the check at the end.
    const target = (await client.control('/keys', {})).body.keyId as string;
    const routes: Array<[string, string, Record<string, unknown>]> = [
      [
        '/_sandbox/keys',
        'POST',
        {
          environment: 'sandbox',
          webhookUrl: 'http://127.0.0.1:9/h',
          name: 'n',
          description: 'd',
          destination: 'x',
          expiresAt: null,
        },
      ],
      [`/_sandbox/keys/${target}`, 'PATCH', { webhookUrl: null, description: 'd', expiresAt: null }],
      [`/_sandbox/keys/key_nope/expire-secret`, 'POST', { clientSecret: 'x' }],
      ['/_sandbox/account/freeze', 'POST', { reason: 'unpaid_invoices' }],
      [
        `/_sandbox/payments/${crypto.randomUUID()}/outcome`,
        'POST',
        { status: 'COMPLETED', networkStatus: 'X', providerId: 'bank_x' },
      ],
      [
        '/_sandbox/faults',
        'POST',
        { service: 'reforge', kind: '500', times: 1, path: '/x', stage: 'before', delayMs: 0 },
      ],
      ['/_sandbox/clock', 'POST', { advanceSeconds: 0 }],
      ['/_sandbox/orders/faults', 'POST', { kind: 'hold', times: 1 }],
      [`/_sandbox/orders/${crypto.randomUUID()}/release`, 'POST', {}],
      ['/_sandbox/chains/31337/smart-wallets', 'POST', { owner: order.mintWallet }],
    ];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...routes),
        fc.integer({ min: 0, max: 99 }),
        async ([path, method, valid], seed) => {
          const raw = fc.sample(rawBody(valid), { numRuns: 1, seed })[0];
          await send(path, method, raw);
        },
      ),
      { numRuns: RUNS },
    );
    await client.control('/account/unfreeze', {});
    await client.control('/faults', undefined, 'DELETE');
    await client.control('/orders/faults', undefined, 'DELETE');
  });
});
