import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { checkoutSchema, createPaymentResponseSchema, paymentStatusSchema } from '../../schemas/proxy-api.ts';
import { http } from '../support/http.ts';
import { openSse } from '../support/sse-client.ts';
import { eventually, SHOP_ORIGIN, startStack, type Stack } from '../support/stack.ts';

const authorise = (flowUrl: string, action = 'authorise', providerId = 'bank_xyz') =>
  http(flowUrl, {
    raw: new URLSearchParams({ action, providerId }).toString(),
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
  });

describe('proxy: checkouts and payments', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  describe('POST /api/checkouts (merchant server)', () => {
    it('creates a checkout with the merchant key: 201 with its id, amount and expiry', async () => {
      const response = await stack.merchant('/api/checkouts', {
        body: { amount: '100.50', currencyCode: 'GBP', reference: 'INV-7', metadata: { cart: [1, 2] } },
      });
      assert.equal(response.status, 201);
      const checkout = checkoutSchema.parse(response.body);
      assert.match(checkout.checkoutId, /^chk_[A-Za-z0-9_-]{24}$/);
      assert.equal(checkout.amount, '100.50', 'the merchant notation is kept');
      assert.equal(checkout.state, 'open');
      assert.equal(checkout.environment, 'sandbox');
      const hours = (Date.parse(checkout.expiresAt) - Date.now()) / 3_600_000;
      assert.ok(hours > 23.9 && hours <= 24, `expires in 24 h, got ${hours}`);
    });

    it('accepts a JSON number as amount and keeps it as a decimal string', async () => {
      const response = await stack.merchant('/api/checkouts', {
        body: { amount: 12.5, currencyCode: 'EUR', reference: 'N-1' },
      });
      assert.equal(response.body.amount, '12.5');
    });

    it('refuses calls without the merchant key, or with an operator’s token', async () => {
      const attempts: Array<Record<string, string>> = [
        {},
        { Authorization: `Bearer ${stack.admin.token}` },
        { Authorization: 'Bearer nope' },
        { Authorization: stack.config.merchantKey },
      ];
      for (const headers of attempts) {
        const response = await http(`${stack.proxy.origin}/api/checkouts`, {
          body: { amount: '1', currencyCode: 'EUR', reference: 'X' },
          headers,
        });
        assert.equal(response.status, 401);
        assert.match(response.body.error, /KASSA_MERCHANT_KEY/);
        assert.match(response.headers.get('www-authenticate')!, /Bearer/);
      }
    });

    it('reads a checkout: the customer’s view without a key, the merchant’s with it, 401 with a challenge for a wrong one', async () => {
      const checkoutId = await stack.checkout({ metadata: { orderId: 7 } });
      const customer = await stack.browser(`/api/checkouts/${checkoutId}`);
      assert.equal(customer.status, 200);
      assert.equal(customer.body.metadata, undefined);
      const merchant = await stack.merchant(`/api/checkouts/${checkoutId}`);
      assert.deepEqual(merchant.body.metadata, { orderId: 7 });
      // The answer with no checker in the way: the test's own assertions are the check here.
      const wrong = await fetch(`${stack.proxy.origin}/api/checkouts/${checkoutId}`, {
        headers: { Authorization: `Bearer ${stack.admin.token}` },
      });
      assert.equal(wrong.status, 401);
      assert.equal(
        wrong.headers.get('www-authenticate'),
        'Bearer realm="KASSA_MERCHANT_KEY"',
        'RFC 9110: a 401 names its scheme',
      );
      assert.match(((await wrong.json()) as { error: string }).error, /KASSA_MERCHANT_KEY/);
    });

    const invalid: Array<[string, Record<string, unknown>, RegExp]> = [
      ['a zero amount', { amount: '0', currencyCode: 'EUR', reference: 'X' }, /amount must be from 0.01/],
      ['three decimals', { amount: '1.005', currencyCode: 'EUR', reference: 'X' }, /at most 2 decimal places/],
      ['a negative amount', { amount: '-3', currencyCode: 'EUR', reference: 'X' }, /positive decimal/],
      [
        'an unsupported currency',
        { amount: '1', currencyCode: 'USD', reference: 'X' },
        /^Invalid currencyCode: USD. This shop accepts EUR and GBP$/,
      ],
      [
        'a reference the rails cannot carry',
        { amount: '1', currencyCode: 'EUR', reference: 'order #1' },
        /reference may hold only/,
      ],
      [
        'metadata that is not an object',
        { amount: '1', currencyCode: 'EUR', reference: 'X', metadata: 'x' },
        /metadata must be a JSON object/,
      ],
      [
        'an unknown field',
        { amount: '1', currencyCode: 'EUR', reference: 'X', redirectUrl: 'https://evil.example' },
        /Unknown field: redirectUrl/,
      ],
    ];
    for (const [what, body, message] of invalid) {
      it(`refuses ${what} with 400`, async () => {
        const response = await stack.merchant('/api/checkouts', { body });
        assert.equal(response.status, 400);
        assert.match(response.body.error, message);
      });
    }
  });

  describe('POST /api/payments (browser)', () => {
    it('starts a payment: 201 with transactionId, flowUrl, status, statusToken, environment', async () => {
      const checkoutId = await stack.checkout({ amount: '42.50', reference: 'ORDER-9' });
      const response = await stack.pay(checkoutId);
      assert.equal(response.status, 201);
      const payment = createPaymentResponseSchema.strict().parse(response.body);
      assert.equal(payment.status, 'PENDING');
      assert.equal(payment.environment, 'sandbox');
      assert.match(payment.statusToken, /^[A-Za-z0-9_-]{43}$/, '256 random bits');
      assert.ok(payment.flowUrl.startsWith(`${stack.sandbox.pay}/flow/`));
      // What upstream got: the checkout's amount and reference, and a return URL carrying the status token.
      const upstream = (
        await http(`${stack.sandbox.pay}/v1/payments/${payment.transactionId}`, {
          headers: { Authorization: `Bearer ${(await stack.proxy.services.tokens.token()).accessToken}` },
        })
      ).body;
      assert.equal(upstream.amount, 42.5);
      assert.equal(upstream.reference, 'ORDER-9');
      // The bank sends the customer back to the proxy's return address, which leads on to the shop's page.
      assert.equal(upstream.redirectUrl, `${stack.proxy.origin}/r/${payment.statusToken}`);
      const back = await http(upstream.redirectUrl);
      assert.equal(back.status, 303);
      assert.equal(back.headers.get('location'), `${SHOP_ORIGIN}/return?kassa_status=${payment.statusToken}`);
      const stored = await stack.proxy.services.store.paymentById(payment.transactionId);
      assert.match(stored!.endToEndId!, /^E2E[0-9A-F]{24}$/, 'the end-to-end id is kept from the start');
      assert.deepEqual(JSON.parse(upstream.metadata).kassa, { checkoutId });
    });

    it('gives the same payment for the same Idempotency-Key, also for concurrent double clicks', async () => {
      const checkoutId = await stack.checkout();
      const results = await Promise.all(Array.from({ length: 5 }, () => stack.pay(checkoutId, 'double-click-key-1')));
      const ids = new Set(results.map((result) => result.body.transactionId));
      assert.equal(ids.size, 1, 'one payment');
      assert.ok(results.every((result) => result.status === 201));
      const again = await stack.pay(checkoutId, 'double-click-key-1');
      assert.equal(again.body.transactionId, [...ids][0]);
      assert.equal(again.body.statusToken, results[0]!.body.statusToken);
    });

    it('never yields two live payments for one checkout, whatever the keys', async () => {
      const checkoutId = await stack.checkout();
      const results = await Promise.all(Array.from({ length: 6 }, (_, i) => stack.pay(checkoutId, `tab-${i}-key-xyz`)));
      assert.equal(new Set(results.map((result) => result.body.transactionId)).size, 1);
      assert.equal(
        results.filter((result) => result.status === 201).length,
        1,
        'one was created, the others were handed the live one',
      );
      const list = (await stack.operator('/api/payments?limit=200')).body.payments.filter(
        (payment: { checkoutId: string }) => payment.checkoutId === checkoutId,
      );
      assert.equal(list.length, 1);
    });

    it('allows a new attempt after a failed one, and refuses a paid checkout', async () => {
      const checkoutId = await stack.checkout();
      const first = (await stack.pay(checkoutId)).body;
      await authorise(first.flowUrl, 'cancel');
      const failed = await eventually(async () => {
        const view = (await stack.browser(`/api/payments/status/${first.statusToken}`)).body;
        return view.status === 'FAILED' ? view : undefined;
      });
      assert.equal(failed.retryable, true);
      assert.equal(failed.networkStatus, 'CANCELLED');
      const second = await stack.pay(checkoutId);
      assert.equal(second.status, 201);
      assert.notEqual(second.body.transactionId, first.transactionId);
      assert.equal(
        (await stack.browser(`/api/payments/status/${first.statusToken}`)).body.retryable,
        false,
        'a newer attempt took over',
      );
      await authorise(second.body.flowUrl);
      await eventually(async () =>
        (await stack.browser(`/api/checkouts/${checkoutId}`)).body.state === 'paid' ? true : undefined,
      );
      const third = await stack.pay(checkoutId);
      assert.equal(third.status, 409);
      assert.equal(third.body.error, 'This checkout is already paid');
    });

    it('names the bank and gives the end-to-end id to quote, for the receipt', async () => {
      const created = (await stack.pay(await stack.checkout())).body;
      const before = (await stack.browser(`/api/payments/status/${created.statusToken}`)).body;
      assert.equal(before.bankName, null, 'no bank chosen yet');
      assert.match(before.endToEndId, /^E2E[0-9A-F]{24}$/);
      await authorise(created.flowUrl, 'authorise', 'bank_havel');
      const after = await eventually(async () => {
        const view = (await stack.browser(`/api/payments/status/${created.statusToken}`)).body;
        return view.status === 'COMPLETED' ? view : undefined;
      });
      assert.equal(after.providerId, 'bank_havel');
      assert.equal(after.bankName, 'Havel Sparkasse');
      assert.equal(after.endToEndId, before.endToEndId);
      const upstream = (
        await http(`${stack.sandbox.pay}/v1/payments/${created.transactionId}`, {
          headers: { Authorization: `Bearer ${(await stack.proxy.services.tokens.token()).accessToken}` },
        })
      ).body;
      assert.equal(after.endToEndId, upstream.endToEndId);
    });

    it('refuses a reused Idempotency-Key with a different request (422)', async () => {
      const [a, b] = [await stack.checkout(), await stack.checkout()];
      assert.equal((await stack.pay(a, 'reused-key-123')).status, 201);
      const reused = await stack.pay(b, 'reused-key-123');
      assert.equal(reused.status, 422);
      assert.match(reused.body.error, /already used for a different payment request/);
    });

    it('requires a well-formed Idempotency-Key', async () => {
      const checkoutId = await stack.checkout();
      for (const headers of [{}, { 'Idempotency-Key': 'short' }, { 'Idempotency-Key': 'has spaces in it' }] as Array<
        Record<string, string>
      >) {
        const response = await stack.browser('/api/payments', { body: { checkoutId }, headers });
        assert.equal(response.status, 400);
        assert.match(response.body.error, /Idempotency-Key/);
      }
    });

    it('refuses a tampered amount: the browser never sets what is paid', async () => {
      const checkoutId = await stack.checkout({ amount: '99.00' });
      for (const body of [
        { checkoutId, amount: '0.01' },
        { checkoutId, currencyCode: 'GBP' },
        { checkoutId, reference: 'FREE' },
      ]) {
        const response = await stack.browser('/api/payments', {
          body,
          headers: { 'Idempotency-Key': `tamper-${Object.keys(body)[1]}` },
        });
        assert.equal(response.status, 400);
        assert.match(response.body.error, /Unknown field/);
      }
      const open = await stack.browser('/api/payments', {
        body: { amount: '0.01', currencyCode: 'EUR', reference: 'FREE' },
        headers: { 'Idempotency-Key': 'tamper-open' },
      });
      assert.equal(open.status, 403);
      assert.match(open.body.error, /Open amounts are not enabled/);
    });

    it('answers 404 for an unknown checkout and 400 for bodies that are not a payment request', async () => {
      assert.equal((await stack.pay('chk_nope')).status, 404);
      for (const body of [[1], 'x', {}, { checkoutId: 5 }]) {
        const response = await stack.browser('/api/payments', { body, headers: { 'Idempotency-Key': 'shape-test-1' } });
        assert.equal(response.status, 400, JSON.stringify(body));
      }
    });

    it('refuses an expired checkout (410) but still finds the payment made before expiry', async () => {
      // A checkout that expires soon after it is paid, put where the merchant route would put it. How
      // soon is up to the machine: a window a payment does not fit in on this one is tried again, longer.
      let checkoutId = '';
      let key = '';
      let expiresAt = 0;
      let made: Awaited<ReturnType<typeof stack.pay>> | undefined;
      for (let windowMs = 500; !made; windowMs *= 2) {
        checkoutId = `chk_expiring_${Date.now()}`;
        expiresAt = Date.now() + windowMs;
        await stack.proxy.services.store.insertCheckout({
          checkoutId,
          amount: '5.00',
          currencyCode: 'EUR',
          reference: 'EXP-1',
          metadata: null,
          createdAt: Date.now(),
          expiresAt,
          currentAttempt: null,
        });
        key = `before-expiry-${windowMs}`;
        const answer = await stack.pay(checkoutId, key);
        if (answer.status !== 410) made = answer;
      }
      assert.equal(made.status, 201);
      await new Promise((resolve) => setTimeout(resolve, expiresAt - Date.now() + 50));
      assert.equal(
        (await stack.pay(checkoutId, key)).body.transactionId,
        made.body.transactionId,
        'a reload finds its payment',
      );
      await authorise(made.body.flowUrl, 'cancel');
      await eventually(async () =>
        (await stack.browser(`/api/payments/status/${made.body.statusToken}`)).body.status === 'FAILED'
          ? true
          : undefined,
      );
      assert.equal(
        (await stack.browser(`/api/payments/status/${made.body.statusToken}`)).body.retryable,
        false,
        'an expired checkout takes no new attempt',
      );
      const late = await stack.pay(checkoutId, 'after-expiry-1');
      assert.equal(late.status, 410);
      assert.equal((await stack.browser(`/api/checkouts/${checkoutId}`)).body.state, 'expired');
    });

    it('uses a requested return URL only when the shop allows its origin and path', async () => {
      const checkoutId = await stack.checkout();
      const ok = await stack.browser('/api/payments', {
        body: { checkoutId, returnUrl: `${SHOP_ORIGIN}/return?order=7&kassa_status=forged#x` },
        headers: { 'Idempotency-Key': 'return-url-ok' },
      });
      assert.equal(ok.status, 201);
      const token = (await stack.proxy.services.tokens.token()).accessToken;
      const upstream = (
        await http(`${stack.sandbox.pay}/v1/payments/${ok.body.transactionId}`, {
          headers: { Authorization: `Bearer ${token}` },
        })
      ).body;
      assert.equal(
        (await http(upstream.redirectUrl)).headers.get('location'),
        `${SHOP_ORIGIN}/return?order=7&kassa_status=${ok.body.statusToken}`,
        'a forged kassa_status is replaced',
      );
      const other = await stack.checkout();
      for (const returnUrl of ['https://evil.example/return', `${SHOP_ORIGIN}/elsewhere`, 'not a url']) {
        const refused = await stack.browser('/api/payments', {
          body: { checkoutId: other, returnUrl },
          headers: { 'Idempotency-Key': `return-${returnUrl.length}` },
        });
        assert.equal(refused.status, 400, returnUrl);
      }
      assert.equal(
        (await stack.browser(`/api/checkouts/${other}`)).body.state,
        'open',
        'a refused request leaves the checkout open',
      );
    });

    it('does not hand out a flowUrl outside KASSA_FLOW_HOSTS', async () => {
      const strict = await startStack({ reuseSandbox: stack.sandbox, env: { KASSA_FLOW_HOSTS: 'bank.example' } });
      try {
        const checkoutId = await strict.checkout();
        const response = await strict.pay(checkoutId);
        assert.equal(response.status, 502);
        assert.match(response.body.error, /does not trust/);
        assert.ok(!response.text.includes('/pay/flow/'));
        assert.ok(strict.logs.some((line) => line.includes('flowUrl outside KASSA_FLOW_HOSTS')));
        assert.equal((await strict.browser(`/api/checkouts/${checkoutId}`)).body.state, 'open');
      } finally {
        await strict.stop();
      }
    });
  });

  describe('open-amount mode', () => {
    it('takes amount, currency and reference from the browser only within the configured bounds', async () => {
      const open = await startStack({ reuseSandbox: stack.sandbox, env: { KASSA_OPEN_AMOUNT: '1..50 EUR' } });
      try {
        assert.deepEqual((await open.browser('/api/config')).body, {
          environment: 'sandbox',
          openAmount: { min: '1', max: '50', currencyCode: 'EUR' },
        });
        const pay = (body: Record<string, unknown>, key: string) =>
          open.browser('/api/payments', { body, headers: { 'Idempotency-Key': key } });
        const ok = await pay({ amount: '12.34', currencyCode: 'EUR', reference: 'DONATION' }, 'open-ok-1');
        assert.equal(ok.status, 201);
        const view = (await open.browser(`/api/payments/status/${ok.body.statusToken}`)).body;
        assert.equal(view.amount, '12.34');
        assert.equal(view.checkoutId, null);
        await authorise(ok.body.flowUrl, 'cancel');
        const failed = await eventually(async () => {
          const current = (await open.browser(`/api/payments/status/${ok.body.statusToken}`)).body;
          return current.status === 'FAILED' ? current : undefined;
        });
        assert.equal(failed.retryable, true, 'a failed open-amount payment may always be followed by a new one');
        assert.equal((await pay({ amount: '50.01', currencyCode: 'EUR', reference: 'X' }, 'open-high')).status, 400);
        assert.equal((await pay({ amount: '0.99', currencyCode: 'EUR', reference: 'X' }, 'open-low1')).status, 400);
        assert.match(
          (await pay({ amount: '10', currencyCode: 'GBP', reference: 'X' }, 'open-gbp1')).body.error,
          /currencyCode must be EUR/,
        );
      } finally {
        await open.stop();
      }
    });
  });

  describe('GET /api/payments/status/{statusToken} and /api/checkouts/{id}', () => {
    it("returns the customer's view, and 404 for an unknown token", async () => {
      const checkoutId = await stack.checkout({ amount: '7.00', reference: 'VIEW-1' });
      const created = (await stack.pay(checkoutId)).body;
      const response = await stack.browser(`/api/payments/status/${created.statusToken}`);
      assert.equal(response.status, 200);
      const view = paymentStatusSchema.strict().parse(response.body);
      assert.deepEqual(
        {
          transactionId: view.transactionId,
          status: view.status,
          amount: view.amount,
          currencyCode: view.currencyCode,
          reference: view.reference,
          checkoutId: view.checkoutId,
        },
        {
          transactionId: created.transactionId,
          status: 'PENDING',
          amount: '7.00',
          currencyCode: 'EUR',
          reference: 'VIEW-1',
          checkoutId,
        },
      );
      assert.equal((await stack.browser(`/api/checkouts/${checkoutId}`)).body.state, 'pending');
      for (const token of ['x'.repeat(43), 'short', created.transactionId])
        assert.equal((await stack.browser(`/api/payments/status/${token}`)).status, 404);
      assert.equal((await stack.browser('/api/checkouts/chk_unknown')).status, 404);
    });

    it('keeps what the page reads out of shared caches, never no-store (the page stays in the back/forward cache)', async () => {
      const checkoutId = await stack.checkout({ amount: '7.10', reference: 'VIEW-2' });
      const created = (await stack.pay(checkoutId)).body;
      const path = `/api/payments/status/${created.statusToken}`;
      // Twice: the first read is the app's, the second the fast lane's (status-read-lane.ts).
      for (const read of [await stack.browser(path), await stack.browser(path)])
        assert.equal(read.headers.get('cache-control'), 'private, no-cache');
      const checkout = await stack.browser(`/api/checkouts/${checkoutId}`);
      assert.equal(checkout.headers.get('cache-control'), 'private, no-cache');
      const stream = openSse(`${stack.proxy.origin}${path}/events`, { Origin: SHOP_ORIGIN });
      try {
        await stream.waitForEvents(1);
        assert.equal(stream.headers['cache-control'], 'private, no-cache');
      } finally {
        stream.close();
      }
      // The merchant's own view of the checkout, read by its server with its key, is not kept at all.
      const merchant = await stack.merchant(`/api/checkouts/${checkoutId}`);
      assert.equal(merchant.status, 200);
      assert.equal(merchant.headers.get('cache-control'), 'no-store');
    });
  });
});
