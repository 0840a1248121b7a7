import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { createApp } from '../../proxy/http/app.ts';
import { API_DOCS_CSP, apiDocsRoutes } from '../../proxy/http/openapi/api-docs-routes.ts';
import { openApiDocument } from '../../proxy/http/openapi/document.ts';
import { merchantCheckoutExample } from '../../proxy/http/openapi/examples.ts';
import { STATUS_READ_ROUTE } from '../../proxy/http/status-read-lane.ts';
import type { ProxyServices } from '../../proxy/services.ts';
import { ApiConformance, conformanceOf } from '../support/api-conformance.ts';
import { exampleRequests, type ExampleRequest } from '../support/api-examples.ts';
import { OPERATION_IDS } from '../support/api-walk/operation-ids.ts';
import { EVENTS_SECRET, OPENAPI_STACK_ENV } from '../support/api-walk/stack-env.ts';
import { launchChromium, watchProblems } from '../support/browser.ts';
import { http, type Answered, type Json } from '../support/http.ts';
import type { TestOperator } from '../support/operators.ts';
import { redoclyLint } from '../support/redocly-lint.ts';
import { SHOP_ORIGIN, startStack, type Stack } from '../support/stack.ts';

/** A Hono route path as OpenAPI writes it: `:name` and `:name{pattern}` become `{name}`. */
const documented = (path: string) => path.replace(/:(\w+)(\{[^}]*\})?/g, '{$1}');

describe('proxy: the OpenAPI document', () => {
  let stack: Stack;
  /** The document as the proxy serves it. */
  let document: Json;

  before(async () => {
    stack = await startStack({ env: OPENAPI_STACK_ENV });
    document = (await http(`${stack.proxy.origin}/openapi.json`)).body;
  });
  after(() => stack?.stop());

  it('passes Redocly’s recommended rules with no error and no warning, without the network', async () => {
    const report = await redoclyLint(document);
    assert.deepEqual(report.problems, []);
    assert.equal(report.totals.errors, 0);
    assert.equal(report.totals.warnings, 0);
  });

  it('describes every route the app serves (the status-read lane’s too), and no route it does not serve', () => {
    const { app } = createApp(stack.proxy.services);
    const served = new Set<string>();
    const preflights = new Set<string>();
    for (const { method, path } of app.routes) {
      if (method === 'ALL') {
        // Middleware on every path or a prefix (request id, log, headers, body limits), and the /hooks/ catch-all 404.
        assert.ok(
          ['/*', '*', '/api/*', '/hooks/*', '/operator/*'].includes(path),
          `${path}: describe this route, or say why not here`,
        );
      } else if (method === 'OPTIONS') preflights.add(documented(path));
      else served.add(`${method} ${documented(path)}`);
    }
    const described = Object.entries(document.paths).flatMap(([path, methods]) =>
      Object.keys(methods as Json).map((method) => `${method.toUpperCase()} ${path}`),
    );
    assert.deepEqual(
      [...served].sort(),
      described.sort(),
      'describe each route in its module’s operation table, mounted with it in proxy/http/app.ts (proxy/http/openapi/operation.ts)',
    );
    assert.ok(served.has(`GET ${documented(STATUS_READ_ROUTE)}`), 'the lane answers a described route');
    // A preflight is answered for a browser route, never for a path of its own.
    for (const path of preflights) {
      const prefix = path.endsWith('/*') ? path.slice(0, -1) : undefined;
      assert.ok(
        prefix ? Object.keys(document.paths).some((p) => p.startsWith(prefix)) : document.paths[path],
        `preflight of ${path}`,
      );
    }
  });

  it('names every operation for generated clients, tags it by audience, and says who may call it', () => {
    const operations: Json[] = Object.values(document.paths).flatMap((methods) => Object.values(methods as Json));
    assert.deepEqual(operations.map((operation) => operation.operationId).sort(), OPERATION_IDS);
    const tags = new Set((document.tags as Array<{ name: string }>).map((tag) => tag.name));
    for (const operation of operations) {
      const { operationId, tags: audiences, security, description } = operation;
      assert.ok(audiences.length > 0, `${operationId}: its audience`);
      for (const tag of audiences) assert.ok(tags.has(tag), `${operationId}: tag ${tag}`);
      assert.ok(Array.isArray(security), `${operationId}: security`);
      if (security.length === 0)
        assert.match(description, /\*\*No credential:\*\* \S/, `${operationId}: why no credential`);
    }
    assert.deepEqual(Object.keys(document.webhooks as object).sort(), [
      'checkout.expired',
      'checkout.paid',
      'link.paid',
      'onramp.delivered',
      'onramp.failed',
      'onramp.paid',
      'payment.completed',
      'payment.failed',
    ]);
  });

  it('the example event verifies with the example secret of docs/events.md', () => {
    const webhook = document.webhooks['checkout.paid'].post;
    const headers = Object.fromEntries(
      (webhook.parameters as Array<{ name: string; example: string }>).map((p) => [p.name, p.example]),
    );
    const body = JSON.stringify(webhook.requestBody.content['application/json'].example);
    const signature = createHmac('sha256', Buffer.from(EVENTS_SECRET.slice('whsec_'.length), 'base64'))
      .update(`${headers['webhook-id']}.${headers['webhook-timestamp']}.${body}`)
      .digest('base64');
    assert.equal(headers['webhook-signature'], `v1,${signature}`);
  });

  it('servers: KASSA_PUBLIC_URL, else the request’s loopback origin, else relative to the document', async () => {
    assert.deepEqual(
      (document.servers as Array<{ url: string }>).map((s) => s.url),
      [stack.proxy.origin],
    );
    const withPublicUrl = apiDocsRoutes(
      { config: { ...stack.config, publicUrl: 'https://pay.shop.example' } } as ProxyServices,
      { document: openApiDocument({ version: '0', operations: [] }) },
    );
    const servers = async (url: string) =>
      ((await (await withPublicUrl.request(url)).json()) as { servers: Array<{ url: string }> }).servers[0]!.url;
    assert.equal(await servers('http://203.0.113.9/openapi.json'), 'https://pay.shop.example');
    const without = apiDocsRoutes({ config: stack.config } as ProxyServices, {
      document: openApiDocument({ version: '0', operations: [] }),
    });
    const hostile = (await (await without.request('http://evil.example/openapi.json')).json()) as {
      servers: Array<{ url: string }>;
    };
    assert.equal(hostile.servers[0]!.url, '/', 'a Host header from elsewhere is never believed');
  });

  it('a contract tester runs every operation from the document’s examples alone; each answer is as documented', async () => {
    const origin = stack.proxy.origin;
    // An admin of its own, whose token the tester signs out (signOut, signOutCredential: sent last).
    const tester = await stack.addOperator('admin', 'Contract Tester');
    const { requests, missing } = exampleRequests(document, examplesAs(stack, tester));
    assert.deepEqual(missing, [], 'what the document leaves a contract tester to guess');
    const last = (request: ExampleRequest) => (['signOut', 'signOutCredential'].includes(request.operationId) ? 1 : 0);
    requests.sort((a, b) => last(a) - last(b));
    // The resources the examples name, where this proxy can hold them: the example checkout (its
    // webhook secret and return page are this proxy's settings, above).
    const { checkoutId, amount, currencyCode, reference, metadata } = merchantCheckoutExample;
    await stack.proxy.services.store.insertCheckout({
      checkoutId,
      amount,
      currencyCode,
      reference,
      metadata: JSON.stringify(metadata),
      createdAt: Date.now(),
      expiresAt: Date.now() + 86_400_000,
      currentAttempt: null,
    });
    const conformance = (await conformanceOf(origin))!;
    const answered = new Map<string, number>();
    for (const request of requests) {
      // The helper checks every answer against the document (api-conformance.ts); of a stream, its head.
      const answer = request.stream ? await streamHead(origin, request, conformance) : await send(origin, request);
      answered.set(request.operationId, answer.status);
    }
    const refused = [...answered].filter(([, status]) => status === 415 || status >= 500);
    assert.deepEqual(refused, [], 'no example is refused for its type, and none fails');
    // Each example body is a request the proxy takes, and the examples that name the checkout, the
    // webhook secret or the return page find them.
    const succeeded = (id: string) => (answered.get(id) ?? 0) >= 200 && answered.get(id)! < 300;
    assert.deepEqual(
      [
        'createCheckout',
        'getCheckout',
        'createPayment',
        'receivePaymentWebhook',
        'prepareBridgeTransfer',
        'createOnrampQuote',
        'createOrder',
        'redeliverFailedEvents',
      ].filter((id) => !succeeded(id)),
      [],
      JSON.stringify(Object.fromEntries(answered)),
    );
  });

  it('currencyCode lists what this proxy takes: the settled currencies, and the one of KASSA_OPEN_AMOUNT', async () => {
    const schemas = (served: Json) => served.components.schemas;
    assert.deepEqual(schemas(document).CurrencyCode.enum, ['EUR', 'GBP']);
    assert.deepEqual(schemas(document).CreateCheckoutRequest.properties.currencyCode, {
      $ref: '#/components/schemas/CurrencyCode',
    });
    assert.deepEqual(schemas(document).OpenAmountCurrencyCode.not, {}, 'open amounts are off here: none is taken');
    const { app } = createApp({
      ...stack.proxy.services,
      config: { ...stack.config, openAmount: { min: '1', max: '500', currencyCode: 'GBP' } },
    });
    const withOpenAmount: Json = await (await app.request('http://127.0.0.1/openapi.json')).json();
    assert.deepEqual(schemas(withOpenAmount).OpenAmountCurrencyCode.enum, ['GBP']);
    // And the proxy refuses what the document does not list.
    const refused = await stack.merchant('/api/checkouts', {
      body: { amount: '1.00', currencyCode: 'USD', reference: 'NOT-LISTED' },
    });
    assert.equal(refused.status, 400);
    assert.match(refused.body.error, /Invalid currencyCode: USD/);
  });

  it('every JSON route refuses a body sent as text/plain or as a form: 415, naming application/json', async () => {
    const { requests } = exampleRequests(document, examplesAs(stack));
    // The sign-in and device routes (/operator/*) take forms too, as RFC 8628 has the token request sent.
    const withBody = requests.filter((request) => request.body !== undefined && request.path.startsWith('/api/'));
    assert.ok(withBody.length >= 10, `${withBody.length} JSON routes`);
    for (const request of withBody) {
      for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/json; charset=latin1']) {
        const answer = await send(stack.proxy.origin, {
          ...request,
          headers: { ...request.headers, 'Content-Type': type },
        });
        assert.equal(answer.status, 415, `${request.operationId} as ${type}: ${answer.text}`);
        assert.match(answer.body.error, /application\/json/);
      }
      // fetch would call the text text/plain: node:http sends it with no type at all.
      const { 'Content-Type': _, ...untyped } = request.headers;
      const answer = await untypedPost(`${stack.proxy.origin}${request.path}`, request.method, untyped, request.body!);
      assert.equal(answer.status, 415, `${request.operationId} without Content-Type`);
      assert.match(JSON.parse(answer.body).error, /Content-Type is missing/);
    }
  });

  it('the check itself refuses an answer the document does not describe', async () => {
    const conformance = new ApiConformance(document);
    const answer = (status: number, body: unknown, headers: Record<string, string> = {}): Answered => ({
      origin: stack.proxy.origin,
      method: 'GET',
      path: '/api/payments/status/some-token',
      status,
      headers: new Headers({ 'content-type': 'application/json', ...headers }),
      body,
      text: JSON.stringify(body),
    });
    const status = (
      await stack.browser(`/api/payments/status/${(await stack.pay(await stack.checkout())).body.statusToken}`)
    ).body as Record<string, unknown>;
    assert.deepEqual(conformance.check(answer(200, status)), []);
    const problems = (candidate: Answered) => conformance.check(candidate).join('\n');
    assert.match(problems(answer(418, { error: 'teapot' })), /does not document status 418/);
    assert.match(problems(answer(200, { ...status, retryable: 'no' })), /retryable/);
    assert.match(problems(answer(200, { ...status, surprise: 1 })), /surprise/);
    const { bankName: _, ...withoutBankName } = status;
    assert.match(problems(answer(200, withoutBankName)), /bankName/, 'a default is no substitute for a field');
    assert.match(problems(answer(429, { error: 'slow down' })), /header Retry-After is missing/);
    assert.deepEqual(conformance.check(answer(429, { error: 'slow down' }, { 'retry-after': '3' })), []);
    assert.match(
      problems({ ...answer(200, status), headers: new Headers({ 'content-type': 'text/html' }) }),
      /text\/html/,
    );
    assert.deepEqual(conformance.check({ ...answer(404, {}), method: 'DELETE', path: '/livez' }), [], 'the app’s 404');
    assert.match(problems({ ...answer(200, {}), method: 'PATCH', path: '/api/config' }), /no operation/);
  });

  it('the reference page (KASSA_API_DOCS=1) shows the document from the proxy alone, under its own CSP', async () => {
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      const problems = watchProblems(page);
      const elsewhere: string[] = [];
      await page.route('**/*', (route) => {
        if (route.request().url().startsWith(stack.proxy.origin)) return route.continue();
        elsewhere.push(route.request().url());
        return route.abort();
      });
      const answer = await page.goto(`${stack.proxy.origin}/docs`);
      assert.equal(answer!.headers()['content-security-policy'], API_DOCS_CSP);
      await page.getByText('Merchant server').first().click();
      await page.getByText('Create a checkout').first().waitFor();
      assert.deepEqual(elsewhere, [], 'no CDN, no telemetry: the page works offline');
      // Redoc always tries its badge's logo from its CDN; the policy refuses it and Redoc hides the image.
      const badge = /Loading the image 'https:\/\/cdn\.redoc\.ly\/redoc\/logo-mini(-full)?\.svg' violates/;
      assert.deepEqual(
        problems.filter((problem) => !badge.test(problem)),
        [],
      );
    } finally {
      await browser.close();
    }
  });

  it('the reference page is off by default: neither served nor described (and that document passes too)', async () => {
    await stack.restart({ KASSA_API_DOCS: '' });
    assert.equal((await http(`${stack.proxy.origin}/docs`)).status, 404);
    const served = (await http(`${stack.proxy.origin}/openapi.json`)).body;
    assert.equal(served.paths['/docs'], undefined);
    assert.ok(served.paths['/openapi.json']);
    assert.deepEqual((await redoclyLint(served)).totals, { errors: 0, warnings: 0, ignored: 0 });
  });
});

/** The credentials and the Origin a contract tester of this stack holds. */
const examplesAs = (stack: Stack, operator: TestOperator = stack.admin) => ({
  credentials: { merchantKey: stack.config.merchantKey, operatorToken: operator.token },
  browserOrigin: SHOP_ORIGIN,
  browserTag: 'Browser',
});

const send = (origin: string, request: ExampleRequest) =>
  http(`${origin}${request.path}`, { method: request.method, headers: request.headers, raw: request.body });

/** An event stream's status and type; its body is read (and checked) only when it is an error. */
async function streamHead(origin: string, request: ExampleRequest, conformance: ApiConformance) {
  const controller = new AbortController();
  const response = await fetch(`${origin}${request.path}`, { headers: request.headers, signal: controller.signal });
  const text = response.ok ? '' : await response.text();
  controller.abort();
  const answer: Answered = {
    origin,
    method: request.method,
    path: request.path,
    status: response.status,
    headers: response.headers,
    body: response.ok ? text : JSON.parse(text),
    text,
  };
  if (response.ok) assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
  else assert.deepEqual(conformance.check(answer), []);
  return answer;
}

/** A body sent with no Content-Type at all. */
function untypedPost(url: string, method: string, headers: Record<string, string>, body: string) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const sent = request(
      url,
      { method, headers: { ...headers, 'Content-Length': Buffer.byteLength(body) } },
      (answer) => {
        const chunks: Buffer[] = [];
        answer.on('data', (chunk: Buffer) => chunks.push(chunk));
        answer.on('end', () =>
          resolve({ status: answer.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
        );
      },
    );
    sent.on('error', reject);
    sent.end(body);
  });
}
