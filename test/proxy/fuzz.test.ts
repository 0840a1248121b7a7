import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { checkedSender, FUZZ_RUNS, rawBody, segment, VALID_ORDER } from '../support/arbitraries.ts';
import { SHOP_ORIGIN, startStack, type Stack } from '../support/stack.ts';

/**
 * Property: whatever a client sends to any route (body, query, path, headers), the proxy answers
 * without a 5xx, every error is `{error}`, and it keeps serving afterwards.
 */
describe('proxy: fast-check, no input gets a 5xx or crashes the proxy', () => {
  let stack: Stack;
  let checkoutId: string;
  let statusToken: string;

  const send = checkedSender(() => stack.proxy.origin);
  const headerText = fc.string({ maxLength: 300 }).map((value) => value.replace(/[^\t\x20-\x7e]/g, ''));

  before(async () => {
    stack = await startStack({ env: { KASSA_OPEN_AMOUNT: '1..100 EUR' } });
    checkoutId = await stack.checkout();
    statusToken = (await stack.pay(checkoutId)).body.statusToken;
  });
  after(async () => {
    try {
      assert.equal((await stack.pay(await stack.checkout())).status, 201, 'still serving');
    } finally {
      await stack.stop();
    }
  });

  it('POST /api/payments: bodies and Idempotency-Key headers', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          rawBody({ checkoutId: 'chk_x', returnUrl: `${SHOP_ORIGIN}/return` }),
          rawBody({ amount: '10', currencyCode: 'EUR', reference: 'R' }),
        ),
        headerText,
        async (raw, key) => {
          await send('/api/payments', { raw, headers: { Origin: SHOP_ORIGIN, 'Idempotency-Key': key } });
        },
      ),
      { numRuns: FUZZ_RUNS },
    );
  });

  it('POST /api/checkouts (merchant): bodies', async () => {
    await fc.assert(
      fc.asyncProperty(
        rawBody({ amount: '10.00', currencyCode: 'EUR', reference: 'R', metadata: { a: 1 } }),
        async (raw) => {
          await send('/api/checkouts', { raw, headers: { Authorization: `Bearer ${stack.config.merchantKey}` } });
        },
      ),
      { numRuns: FUZZ_RUNS },
    );
  });

  it('GET status, events, checkouts and config: any path segment and Origin', async () => {
    await fc.assert(
      fc.asyncProperty(
        segment,
        headerText,
        fc.constantFrom('status', 'checkouts', 'events', 'config'),
        async (value, origin, route) => {
          const path = {
            status: `/api/payments/status/${value}`,
            checkouts: `/api/checkouts/${value}`,
            events: `/api/payments/status/${value}/events`,
            config: `/api/config?${value}`,
          }[route];
          // An unknown token's stream is a 404 at once; a known one would stay open, so only unknown ones here.
          await send(path, { method: 'GET', headers: origin ? { Origin: origin } : {} });
        },
      ),
      { numRuns: FUZZ_RUNS },
    );
    assert.equal((await stack.browser(`/api/payments/status/${statusToken}`)).status, 200);
  });

  it('bridge: chains query and prepare bodies', async () => {
    const [source, destination] = stack.sandbox.chains;
    const valid = {
      sourceAmount: '1.5',
      sourceToken: source!.tokens.eUSD.address,
      destinationToken: destination!.tokens.eUSD.address,
      destinationChainId: destination!.chainId,
    };
    await fc.assert(
      fc.asyncProperty(rawBody(valid), segment, async (raw, network) => {
        await send('/api/bridge/prepare', { raw, headers: { Origin: SHOP_ORIGIN } });
        await send(`/api/bridge/chains?network=${network}`, { method: 'GET' });
      }),
      { numRuns: FUZZ_RUNS },
    );
  });

  it('operator: orders bodies, ids and filters; payment list queries', async () => {
    const auth = { Authorization: `Bearer ${stack.admin.token}` };
    let n = 0;
    await fc.assert(
      fc.asyncProperty(
        rawBody(VALID_ORDER),
        rawBody({ amount: '2', orderStatus: 'Processing' }),
        segment,
        segment,
        async (create, update, id, query) => {
          await send('/api/orders', { raw: create.replace('"fuzz"', `"fuzz-${n++}"`), headers: auth });
          await send(`/api/orders/${id}`, { method: 'PUT', raw: update, headers: auth });
          await send(`/api/orders/${id}`, { method: 'GET', headers: auth });
          await send(`/api/orders?filterStatus=${query}`, { method: 'GET', headers: auth });
          await send(`/api/payments?limit=${query}&status=${query}&cursor=${id}`, { method: 'GET', headers: auth });
        },
      ),
      { numRuns: Math.ceil(FUZZ_RUNS / 2) },
    );
  });

  it('webhooks: any body at the real path, any path under /hooks/', async () => {
    await fc.assert(
      fc.asyncProperty(
        rawBody({
          event: 'payment.status_updated',
          transactionId: crypto.randomUUID(),
          status: 'COMPLETED',
          amount: 1,
          currencyCode: 'EUR',
          timestamp: new Date().toISOString(),
        }),
        segment,
        async (raw, path) => {
          const answer = await send(`/hooks/payments/${stack.config.webhookSecret}`, { raw });
          assert.equal(answer.status, 200, 'the upstream always gets its 2xx');
          assert.equal((await send(`/hooks/${path}`, { raw })).status, 404);
        },
      ),
      { numRuns: FUZZ_RUNS },
    );
  });
});
