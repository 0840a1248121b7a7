/**
 * The status-read fast lane answers cached status reads on node:http before the Hono app: it must give
 * exactly the app's answer (status, headers, body), count against the same rate limit, log and count
 * alike, and step aside for everything else.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { listen, type Listening } from '../../server-kit/listen.ts';
import { SlidingWindowLimiter } from '../../server-kit/sliding-window.ts';
import { securityHeaderList } from '../../proxy/http/middleware/security-headers.ts';
import type { AnsweredRequest } from '../../proxy/http/middleware/request-log.ts';
import { statusReadLane } from '../../proxy/http/status-read-lane.ts';
import { http, type HttpResult } from '../support/http.ts';
import { startStack, type Stack } from '../support/stack.ts';

/** What must match between the two ways of answering: everything but the date and a generated id. */
function answer(result: HttpResult, keepRequestId: boolean) {
  const headers = [...result.headers].filter(([name]) => name !== 'date' && (keepRequestId || name !== 'x-request-id'));
  return { status: result.status, headers, text: result.text };
}

describe('status reads: the fast lane answers as the app does', () => {
  let stack: Stack;
  let token: string;
  let transactionId: string;
  before(async () => {
    stack = await startStack();
    const payment = (await stack.pay(await stack.checkout())).body;
    token = payment.statusToken;
    transactionId = payment.transactionId;
  });
  after(() => stack.stop());

  const cold = () => stack.proxy.services.statusCache.forget(transactionId);
  const read = (path: string, headers: Record<string, string> = {}, method = 'GET') =>
    http(`${stack.proxy.origin}${path}`, { headers, method });

  it('gives the same answer from a cold cache (the app) and a warm one (the lane), for every kind of request', async () => {
    const origin = stack.config.allowedOrigins[0]!;
    const cases: Array<{ path: string; headers?: Record<string, string>; method?: string; sentId?: boolean }> = [
      { path: `/api/payments/status/${token}` },
      { path: `/api/payments/status/${token}?kassa_status=1&x=%zz` },
      { path: `/api/payments/status/${token}`, headers: { Origin: origin } },
      { path: `/api/payments/status/${token}`, headers: { Origin: 'https://evil.example' } },
      { path: `/api/payments/status/${token}`, headers: { 'X-Request-Id': 'trace-42=ok' }, sentId: true },
      { path: `/api/payments/status/${token}`, headers: { 'X-Request-Id': 'not valid!' } },
      { path: `/api/payments/status/${token}/` },
      { path: `/api/payments/status/${token.slice(0, 42)}` },
      { path: `/api/payments/status/${token}`, method: 'HEAD' },
      { path: `/api/payments/status/${token}`, method: 'OPTIONS', headers: { Origin: origin } },
    ];
    for (const { path, headers, method, sentId = false } of cases) {
      cold();
      const fromApp = await read(path, headers, method);
      const fromLane = await read(path, headers, method);
      assert.deepEqual(
        answer(fromLane, sentId),
        answer(fromApp, sentId),
        `${method ?? 'GET'} ${path} ${JSON.stringify(headers)}`,
      );
    }
    const warm = await read(`/api/payments/status/${token}`);
    assert.equal(warm.status, 200);
    assert.equal(warm.body.transactionId, transactionId);
    assert.match(warm.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
  });

  it('logs each read once, with the token cut short, and counts it for /metrics under the route pattern', async () => {
    const before = stack.logs.length;
    await read(`/api/payments/status/${token}`);
    await read(`/api/payments/status/${token}`);
    const lines = stack.logs
      .slice(before)
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.msg === 'request');
    assert.equal(lines.length, 2);
    for (const line of lines) {
      assert.equal(line.path, `/api/payments/status/${token.slice(0, 4)}…`);
      assert.equal(line.status, 200);
    }
    assert.ok(!stack.logs.slice(before).some((line) => line.includes(token)));
    const metrics = (await stack.operator('/metrics')).text;
    const counted = metrics.match(
      /^kassa_http_requests_total\{route="\/api\/payments\/status\/:statusToken",method="GET",status="200"\} (\d+)$/m,
    );
    assert.ok(counted && Number(counted[1]) >= 2, 'the reads are counted under their route');
  });
});

describe('status reads: the fast lane and the app share one rate limit', () => {
  it('refuses the read after the limit whichever way the reads came, with the app’s 429', async () => {
    const stack = await startStack({ env: { KASSA_RATE_LIMIT: '4' } });
    try {
      const payment = (await stack.pay(await stack.checkout())).body;
      const url = `${stack.proxy.origin}/api/payments/status/${payment.statusToken}`;
      const statuses: number[] = [];
      for (let i = 0; i < 6; i++) {
        if (i % 2 === 0) stack.proxy.services.statusCache.forget(payment.transactionId);
        statuses.push((await http(url)).status);
      }
      assert.deepEqual(statuses, [200, 200, 200, 200, 429, 429]);
      const refused = await http(url);
      assert.equal(refused.status, 429);
      assert.match(refused.headers.get('retry-after') ?? '', /^\d+$/);
      assert.match(refused.body.error, /Too many requests/);
    } finally {
      await stack.stop();
    }
  });
});

describe('status reads: the lane itself', () => {
  let stack: Stack;
  let server: Listening;
  let token: string;
  let transactionId: string;
  const recorded: AnsweredRequest[] = [];
  before(async () => {
    stack = await startStack();
    const payment = (await stack.pay(await stack.checkout())).body;
    token = payment.statusToken;
    transactionId = payment.transactionId;
    const { services } = stack.proxy;
    // The app behind the lane answers 599, so every answer shows which of the two gave it.
    server = await listen(() => new Response('app', { status: 599 }), {
      preempt: statusReadLane({
        statusCache: services.statusCache,
        refresher: services.refresher,
        origins: stack.config.allowedOrigins,
        limiter: new SlidingWindowLimiter(1_000_000, 60_000),
        rateLimit: 1_000_000,
        trustProxy: false,
        headers: securityHeaderList(),
        record: (request) => recorded.push(request),
      }),
    });
  });
  after(async () => {
    await server.close();
    await stack.stop();
  });

  it('answers a warm read and passes a cold one on', async () => {
    const path = `/api/payments/status/${token}`;
    stack.proxy.services.statusCache.forget(transactionId);
    assert.equal((await http(`${server.origin}${path}`)).status, 599);
    await http(`${stack.proxy.origin}${path}`);
    const warm = await http(`${server.origin}${path}`);
    assert.equal(warm.status, 200);
    assert.equal(warm.body.transactionId, transactionId);
    assert.equal(recorded.at(-1)?.route, '/api/payments/status/:statusToken');
  });

  it('never fails on any request line or headers: it answers the cached read or passes on', async () => {
    await http(`${stack.proxy.origin}/api/payments/status/${token}`);
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.constant(`/api/payments/status/${token}`),
          fc.string({ maxLength: 80 }).map((tail) => `/api/payments/status/${encodeURIComponent(tail)}`),
          fc.webPath(),
        ),
        fc.option(fc.webUrl({ withQueryParameters: false }).map((url) => new URL(url).origin)),
        fc.option(fc.stringMatching(/^[\w=-]{0,300}$/)),
        async (path, origin, requestId) => {
          const headers: Record<string, string> = {};
          if (origin !== null) headers.Origin = origin;
          if (requestId !== null && requestId !== '') headers['X-Request-Id'] = requestId;
          const result = await http(`${server.origin}${path}`, { headers });
          const laneMayAnswer =
            path === `/api/payments/status/${token}` &&
            (origin === null || stack.config.allowedOrigins.includes(origin));
          assert.ok(result.status === 599 || (laneMayAnswer && result.status === 200), `${result.status} ${path}`);
        },
      ),
      { numRuns: 150 },
    );
  });
});
