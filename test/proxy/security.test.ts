import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { secretsOf } from '../../proxy/config.ts';
import { http, type HttpResult } from '../support/http.ts';
import { openSse } from '../support/sse-client.ts';
import { SHOP_ORIGIN, startStack, type Stack } from '../support/stack.ts';

describe('proxy: trust boundaries', () => {
  let stack: Stack;
  const responses: HttpResult[] = [];
  const record = async (pending: Promise<HttpResult>) => {
    const response = await pending;
    responses.push(response);
    return response;
  };

  before(async () => {
    stack = await startStack({ env: { KASSA_LOG_LEVEL: 'debug' } });
  });
  after(() => stack.stop());

  it('CORS: the shop origin gets CORS headers and preflights; any other origin is refused', async () => {
    const preflight = await record(
      http(`${stack.proxy.origin}/api/payments`, {
        method: 'OPTIONS',
        headers: {
          Origin: SHOP_ORIGIN,
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers': 'content-type,idempotency-key',
        },
      }),
    );
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get('access-control-allow-origin'), SHOP_ORIGIN);
    assert.match(preflight.headers.get('access-control-allow-headers')!, /Idempotency-Key/);
    assert.equal(preflight.headers.get('access-control-allow-credentials'), null, 'no cookies, ever');
    const checkoutId = await stack.checkout();
    const allowed = await record(stack.browser(`/api/checkouts/${checkoutId}`));
    assert.equal(allowed.headers.get('access-control-allow-origin'), SHOP_ORIGIN);
    assert.equal(allowed.headers.get('access-control-expose-headers'), 'Retry-After', 'pages can see how long to wait');
    assert.match(allowed.headers.get('vary')!, /Origin/);
    for (const origin of ['https://evil.example', 'http://127.0.0.1:10', 'null']) {
      const refused = await record(
        http(`${stack.proxy.origin}/api/payments`, {
          body: { checkoutId },
          headers: { Origin: origin, 'Idempotency-Key': 'cors-test-1' },
        }),
      );
      assert.equal(refused.status, 403, origin);
      assert.equal(refused.headers.get('access-control-allow-origin'), null);
    }
    assert.equal(
      (await stack.browser(`/api/checkouts/${checkoutId}`)).body.state,
      'open',
      'refused requests started nothing',
    );
    const operator = await record(
      stack.operator('/api/payments', { headers: { Origin: 'chrome-extension://abcdefghijklmnop' } }),
    );
    assert.equal(operator.status, 200, 'operator routes are not browser routes: the token is what counts');
    assert.equal(operator.headers.get('access-control-allow-origin'), null);
  });

  it('sends security headers, limits bodies, and answers unknown paths with JSON 404', async () => {
    const response = await record(stack.browser('/api/config'));
    assert.equal(response.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(response.headers.get('referrer-policy'), 'no-referrer');
    assert.match(response.headers.get('content-security-policy')!, /default-src 'none'/);
    assert.match(response.headers.get('x-frame-options')!, /SAMEORIGIN|DENY/);
    const big = await record(
      stack.browser('/api/payments', {
        raw: JSON.stringify({ checkoutId: 'x'.repeat(40_000) }),
        headers: { 'Content-Type': 'application/json', 'Idempotency-Key': 'big-body-1' },
      }),
    );
    assert.equal(big.status, 413);
    const hook = await record(
      http(`${stack.webhookUrl()}`, { raw: 'x'.repeat(70_000), headers: { 'Content-Type': 'application/json' } }),
    );
    assert.equal(hook.status, 413);
    const unknown = await record(http(`${stack.proxy.origin}/api/nothing`));
    assert.equal(unknown.status, 404);
    assert.match(unknown.body.error, /Not found/);
  });

  it('serves an OpenAPI 3.1 document generated from the schemas', async () => {
    const doc = (await record(http(`${stack.proxy.origin}/openapi.json`))).body;
    assert.equal(doc.openapi, '3.1.0');
    for (const path of [
      '/api/checkouts',
      '/api/payments',
      '/api/payments/status/{statusToken}',
      '/api/payments/status/{statusToken}/events',
      '/api/payments/status/{statusToken}/handoff',
      '/api/orders',
      '/api/orders/{orderId}',
      '/api/bridge/chains',
      '/api/bridge/prepare',
      '/api/health',
    ]) {
      assert.ok(doc.paths[path], path);
    }
    const ref = doc.paths['/api/checkouts'].post.requestBody.content['application/json'].schema.$ref as string;
    assert.equal(ref, '#/components/schemas/CreateCheckoutRequest');
    const checkoutBody = doc.components.schemas.CreateCheckoutRequest;
    assert.deepEqual(checkoutBody.required.sort(), ['amount', 'currencyCode', 'reference']);
    assert.equal(checkoutBody.additionalProperties, false);
    assert.deepEqual(
      doc.paths['/api/payments'].post.parameters.map((p: { name: string }) => p.name),
      ['Idempotency-Key'],
    );
    assert.deepEqual(doc.paths['/api/payments'].get.security, [{ operatorToken: [] }, { operatorSession: [] }]);
    // No route nor operation runs the upstream's execute operations (dual control's `executed` state is
    // about an approved request, not a route).
    const routes = Object.entries(doc.paths as Record<string, Record<string, { operationId: string }>>).flatMap(
      ([path, methods]) => [path, ...Object.values(methods).map((operation) => operation.operationId)],
    );
    assert.deepEqual(
      routes.filter((name) => /execute/i.test(name)),
      [],
      'no execute operation',
    );
  });

  it('no configured secret and no access token in any response or log line', async () => {
    // Exercise every kind of route, including failures, before scanning.
    const checkoutId = await stack.checkout();
    const payment = (await record(stack.pay(checkoutId))).body;
    const accessToken = (await stack.proxy.services.coordination.tokens.get())!.accessToken;
    await record(stack.browser(`/api/payments/status/${payment.statusToken}`));
    const stream = openSse(`${stack.proxy.origin}/api/payments/status/${payment.statusToken}/events`);
    await stream.waitForEvents(1);
    await stack.control(`/payments/${payment.transactionId}/outcome`, { status: 'COMPLETED' });
    await stream.waitForClose();
    await record(stack.operator('/api/payments'));
    await record(stack.operator('/api/health'));
    await record(
      stack.operator('/api/orders', {
        body: {
          customerName: 'A',
          chainId: 31337,
          amount: '1',
          mintWallet: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
          customerOrder: 'scan-1',
          stableCoin: 'eUSD',
        },
      }),
    );
    await record(stack.operator('/api/orders/unknown'));
    await record(stack.browser('/api/bridge/chains'));
    await record(http(`${stack.proxy.origin}/hooks/payments/wrong-secret-wrong-secret-wrong-secret`, { body: {} }));
    await record(http(`${stack.proxy.origin}/api/checkouts`, { body: {}, headers: { Authorization: 'Bearer wrong' } }));
    await stack.control('/faults', { service: 'pay', kind: '500', times: 3, path: '/v1/payments/initiate' });
    await record(stack.pay(await stack.checkout()));
    await stack.control('/clock', { advanceSeconds: 3600 });
    await stack.control('/account/freeze', { reason: 'unpaid_invoices' });
    await record(stack.pay(await stack.checkout()));
    await stack.control('/account/unfreeze', {});
    await record(stack.operator('/api/health'));

    // The operator's own personal API token is a secret like the configured ones.
    const forbidden = [...secretsOf(stack.config), accessToken, stack.admin.token];
    assert.equal(forbidden.length, 6);
    const texts = [
      ...responses.map((response) => `${response.text} ${JSON.stringify([...response.headers])}`),
      ...stream.events.map((event) => event.data),
      ...stack.logs,
    ];
    assert.ok(stack.logs.length > 20, `the logs were written (${stack.logs.length})`);
    for (const secret of forbidden) {
      const leak = texts.find((text) => text.includes(secret));
      assert.equal(leak, undefined, `a secret leaked: ${leak?.slice(0, 300)}`);
    }
    assert.ok(
      stack.logs.some((line) => line.includes('/hooks/payments/') && line.includes('…')),
      `the webhook path is logged cut short: ${stack.logs.filter((line) => line.includes('/hooks/')).join('\n')}`,
    );
    const unstructured = stack.logs.filter((line) => typeof JSON.parse(line).level !== 'string');
    assert.deepEqual(unstructured, [], 'every line is structured JSON with a level');
  });
});
