import assert from 'node:assert/strict';
import { as, type TestOperator } from '../support/operators.ts';
import { createHmac } from 'node:crypto';
import { request } from 'node:http';
import { Wallet } from 'ethers';
import { after, before, describe, it } from 'node:test';
import { createApp } from '../../proxy/http/app.ts';
import { openApiDocument } from '../../proxy/http/openapi/document.ts';
import { API_DOCS_CSP, apiDocsRoutes } from '../../proxy/http/openapi/api-docs-routes.ts';
import { STATUS_READ_ROUTE } from '../../proxy/http/status-read-lane.ts';
import type { ProxyServices } from '../../proxy/services.ts';
import {
  createPaymentExample,
  merchantCheckoutExample,
  webhookSecretExample,
} from '../../proxy/http/openapi/examples.ts';
import { ApiConformance, conformanceOf } from '../support/api-conformance.ts';
import { exampleRequests, type ExampleRequest } from '../support/api-examples.ts';
import { launchChromium, watchProblems } from '../support/browser.ts';
import { http, type Answered, type Json } from '../support/http.ts';
import { redoclyLint } from '../support/redocly-lint.ts';
import { openSse } from '../support/sse-client.ts';
import { ONRAMP_ENV, onrampCustomer } from '../support/onramp.ts';
import { asBrowser, fromPage, invite, passkeySignin, registerByLink } from '../support/signin.ts';
import { SoftAuthenticator } from '../support/soft-authenticator.ts';
import { eventually, SHOP_ORIGIN, startStack, type Stack } from '../support/stack.ts';

const EVENTS_SECRET = 'whsec_a2Fzc2EtZXhhbXBsZS1zZWNyZXQtZG8tbm90LXVzZSE=';

/**
 * The names generated clients call their methods by: renaming one breaks every merchant's client, so
 * it must be a decision (change this list with it), never a side effect.
 */
const OPERATION_IDS = [
  'addMyPasskey',
  'approveApproval',
  'approveDevice',
  'cancelApproval',
  'cancelCounterPayment',
  'counterPage',
  'createCheckout',
  'createCounterPayment',
  'createEventDestination',
  'createLink',
  'createMerchantKey',
  'createMyToken',
  'createOnrampPurchase',
  'createOnrampQuote',
  'createOrder',
  'createPayment',
  'deleteEventDestination',
  'deleteOrder',
  'deviceApprovalPage',
  'enableEventEndpoint',
  'endLink',
  'exportAudit',
  'exportLinkPayments',
  'exportPayments',
  'finishLinkPasskey',
  'finishPasskeySignin',
  'followCounterPayment',
  'getApiReference',
  'getApiReferenceViewer',
  'getApproval',
  'getCheckout',
  'getConfig',
  'getCounterPayment',
  'getEvent',
  'getEventDestination',
  'getHealth',
  'getLink',
  'getLiveness',
  'getLivenessLegacy',
  'getMetrics',
  'getOnrampConfig',
  'getOpenApiDocument',
  'getOperatorMe',
  'getOrder',
  'getPaymentHandoff',
  'getPaymentStatus',
  'getPurchase',
  'getPurchaseStatus',
  'getReadiness',
  'getWidgetChunk',
  'getWidgetScript',
  'invitationPage',
  'inviteOperator',
  'linkPageScript',
  'linkQrPng',
  'linkQrSvg',
  'listApprovals',
  'listAudit',
  'listBridgeChains',
  'listChains',
  'listEventDeliveries',
  'listEventDestinations',
  'listEvents',
  'listLinkPayments',
  'listLinks',
  'listMerchantKeys',
  'listMyPasskeys',
  'listMySessions',
  'listMyTokens',
  'listOperatorSessions',
  'listOperators',
  'listOrders',
  'listPurchases',
  'listUnverifiablePayments',
  'lookUpSigninLink',
  'openHandoffLink',
  'openLink',
  'operatorCreateLink',
  'operatorEndLink',
  'operatorExportLinkPayments',
  'operatorGetLink',
  'operatorListLinkPayments',
  'operatorListLinks',
  'operatorPage',
  'operatorPageScript',
  'operatorPageStyle',
  'operatorPauseLink',
  'operatorResumeLink',
  'pauseLink',
  'pollDeviceToken',
  'prepareBridgeTransfer',
  'receivePaymentWebhook',
  'redeliverEvent',
  'redeliverFailedEvents',
  'refundPurchase',
  'rejectApproval',
  'removeMyPasskey',
  'removeOperator',
  'resolvePayment',
  'resumeLink',
  'retryPurchaseMint',
  'returnFromBank',
  'revokeCredential',
  'revokeMerchantKey',
  'rollMerchantKey',
  'rotateEventDestinationSecret',
  'searchPayments',
  'setupPage',
  'signOut',
  'signOutCredential',
  'skipEventDestinationBacklog',
  'startDeviceSignIn',
  'startLinkPasskey',
  'startLinkPayment',
  'startMyPasskey',
  'startPasskeySignin',
  'streamPaymentChanges',
  'streamPaymentStatus',
  'streamPurchaseStatus',
  'testEventDestination',
  'updateEventDestination',
  'updateOperator',
  'updateOrder',
];

/** Every sign-in operation, each with a success (and its answers checked as every answer here is). */
async function signinJourney(stack: Stack): Promise<void> {
  const origin = stack.proxy.origin;
  const invited = await invite(stack.proxy, 'finance');
  const link = { link: 'invitation', token: invited.token };
  await fromPage(origin, '/operator/link', link);
  const authenticator = new SoftAuthenticator(origin);
  await registerByLink(origin, authenticator, { ...link, passkeyName: 'Laptop' });
  const { session } = await passkeySignin(authenticator);
  const browser = asBrowser(session!);
  await browser('/api/operator/sessions');
  const token = await browser('/api/operator/tokens', { body: { name: 'Script', role: 'viewer' } });
  await browser('/api/operator/tokens');
  await browser(`/api/credentials/${token.body.credential.credentialId}`, { method: 'DELETE' });
  const options = await browser('/api/operator/passkeys/options', { body: { passkeyName: 'Key' } });
  const key = new SoftAuthenticator(origin);
  const added = await browser('/api/operator/passkeys', { body: { response: key.register(options.body.options) } });
  await browser('/api/operator/passkeys');
  await browser(`/api/operator/passkeys/${added.body.credentialId}`, { method: 'DELETE' });
  // The pages on localhost, where browsers allow passkeys; on 127.0.0.1 they redirect there.
  for (const path of ['/operator', '/operator/device', '/operator/invite', '/operator/setup', '/operator/counter'])
    await http(`${origin}${path}`);
  const onLocalhost = asBrowser({ ...session!, origin: origin.replace('127.0.0.1', 'localhost') });
  const page = await onLocalhost('/operator');
  for (const asset of page.text.match(/\/operator\/(scripts|styles)\/[\w.-]+/g) ?? []) await http(`${origin}${asset}`);
  await onLocalhost('/operator/device');
  await onLocalhost('/operator/counter');
  await onLocalhost('/operator/invite');
  await onLocalhost('/operator/setup');
  await browser('/operator/signout', { method: 'POST' });
}

/** A Hono route path as OpenAPI writes it: `:name` and `:name{pattern}` become `{name}`. */
const documented = (path: string) => path.replace(/:(\w+)(\{[^}]*\})?/g, '{$1}');

describe('proxy: the OpenAPI document', () => {
  let stack: Stack;
  /** The document as the proxy serves it. */
  let document: Json;

  before(async () => {
    stack = await startStack({
      env: {
        KASSA_API_DOCS: '1',
        KASSA_EVENTS_URL: 'http://127.0.0.1:9/events',
        KASSA_EVENTS_SECRET: EVENTS_SECRET,
        ...ONRAMP_ENV,
        KASSA_COUNTER: '0.50..1000 EUR',
        // The payment service's webhook and the return page, as the document's examples name them.
        KASSA_WEBHOOK_SECRET: webhookSecretExample,
        KASSA_RETURN_URLS: `${SHOP_ORIGIN}/return,${new URL(createPaymentExample.returnUrl!).origin}/thanks`,
      },
    });
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

  it('every operation answers as documented: its successes and its errors, checked against the document', async () => {
    const origin = stack.proxy.origin;
    const bad = { Origin: 'https://evil.example' };
    // Merchant server and browser.
    const checkoutId = await stack.checkout();
    await stack.merchant('/api/checkouts', { body: { amount: 'x' } });
    await http(`${origin}/api/checkouts`, { body: {} });
    const key = { 'Idempotency-Key': 'openapi-walk-1' };
    await stack.merchant('/api/checkouts', {
      body: { amount: '1', currencyCode: 'EUR', reference: 'A' },
      headers: key,
    });
    await stack.merchant('/api/checkouts', {
      body: { amount: '2', currencyCode: 'EUR', reference: 'A' },
      headers: key,
    });
    await stack.browser(`/api/checkouts/${checkoutId}`);
    await stack.merchant(`/api/checkouts/${checkoutId}`);
    await stack.browser(`/api/checkouts/${checkoutId}`, { headers: { Authorization: 'Bearer wrong' } });
    await stack.browser('/api/checkouts/chk_unknown');
    await stack.browser(`/api/checkouts/${checkoutId}`, { headers: bad });
    await stack.browser('/api/config');
    const payment = (await stack.pay(checkoutId)).body;
    await stack.pay(checkoutId);
    await stack.browser('/api/payments', { body: { checkoutId } });
    await stack.pay('chk_unknown');
    await stack.browser('/api/payments', { body: { amount: '5', currencyCode: 'EUR', reference: 'X' }, headers: key });
    await stack.browser(`/api/payments/status/${payment.statusToken}`);
    await stack.browser(`/api/payments/status/${payment.statusToken}`);
    await stack.browser('/api/payments/status/unknown');
    const handoff = (await stack.browser(`/api/payments/status/${payment.statusToken}/handoff`)).body;
    await stack.browser('/api/payments/status/unknown/handoff');
    await http(`${origin}/p/${handoff.code}`);
    await http(`${origin}/p/not-a-code`);
    await http(`${origin}/p/not-a-code`, { headers: { Accept: 'text/html' } });
    await http(`${origin}/r/${payment.statusToken}`);
    await stack.browser('/api/bridge/chains');
    await stack.browser('/api/bridge/chains?network=moon');
    await stack.browser('/api/bridge/prepare', { body: { sourceAmount: 'x' } });
    const [source, destination] = stack.sandbox.chains;
    await stack.browser('/api/bridge/prepare', {
      body: {
        sourceAmount: '12.5',
        sourceToken: source!.tokens.eUSD.address,
        destinationToken: destination!.tokens.eUSD.address,
        destinationChainId: destination!.chainId,
      },
    });
    const stream = openSse(`${origin}/api/payments/status/${payment.statusToken}/events`);
    await stream.waitForEvents(1);
    stream.close();
    assert.equal(stream.headers['content-type'], 'text/event-stream; charset=utf-8');
    const conformance = (await conformanceOf(origin))!;
    assert.equal(conformance.invalid('PaymentStatus', stream.data()[0]), undefined);
    await http(stack.webhookUrl(), { body: { event: 'payment.status_updated', transactionId: payment.transactionId } });
    await http(`${origin}/hooks/payments/wrong-secret`, { body: {} });
    // Operator.
    await stack.operator('/api/payments?status=COMPLETED&limit=5');
    await stack.operator('/api/payments?limit=0');
    await http(`${origin}/api/payments`);
    await stack.operator('/api/payments/export');
    await stack.operator('/api/payments/unverifiable');
    await stack.operator(`/api/payments/resolutions/${payment.transactionId}`, { body: { status: 'X' } });
    await stack.operator('/api/payments/resolutions/unknown', { body: { status: 'FAILED', note: 'statement' } });
    const open = (await stack.pay(await stack.checkout())).body;
    await stack.operator(`/api/payments/resolutions/${open.transactionId}`, {
      body: { status: 'FAILED', note: 'Not on the statement' },
    });
    await stack.operator('/api/orders');
    await stack.operator('/api/orders?filterStatus=Nope');
    const orderBody = {
      customerName: 'Ada',
      chainId: 31337,
      amount: '25',
      mintWallet: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      customerOrder: 'PO-77',
      stableCoin: 'eUSD',
    };
    // Dual control: a pending request (202), approved by a second person; and, below the threshold of a
    // proxy that has one, at once (201, 200).
    const order = (await stack.approved(stack.operator('/api/orders', { body: orderBody }))).body.result;
    await stack.operator(`/api/orders/${order.orderId}`);
    await stack.approved(stack.operator(`/api/orders/${order.orderId}`, { method: 'PUT', body: { amount: '30' } }));
    const second = (await stack.operator('/api/orders', { body: { ...orderBody, customerOrder: 'PO-79' } })).body;
    await stack.operator('/api/approvals?state=pending');
    await stack.operator('/api/approvals?state=lost');
    await stack.operator(`/api/approvals/${second.approvalId}`);
    await stack.operator('/api/approvals/apr_0000000000000000000000');
    await stack.operator(`/api/approvals/${second.approvalId}/approve`, { method: 'POST' });
    await stack.operator(`/api/approvals/${second.approvalId}/reject`, { body: {} });
    const secondPerson = await stack.addOperator('finance');
    await as(origin, secondPerson)(`/api/approvals/${second.approvalId}/reject`, {
      body: { reason: 'No such customer' },
    });
    await as(origin, secondPerson)(`/api/approvals/${second.approvalId}/approve`, { method: 'POST' });
    const third = (await stack.operator('/api/orders', { body: { ...orderBody, customerOrder: 'PO-80' } })).body;
    await stack.operator(`/api/approvals/${third.approvalId}/cancel`, { body: { reason: 'Wrong wallet' } });
    await stack.operator(`/api/orders/${order.orderId}`, { method: 'DELETE' });
    await stack.operator('/api/orders/unknown');
    await stack.operator('/api/chains');
    await stack.operator('/api/health');
    const sse = openSse(`${origin}/api/payments/events`, { Authorization: `Bearer ${stack.admin.token}` });
    // Listening before the change: the stream subscribes before its headers are sent.
    await eventually(() => sse.status ?? undefined, 'the stream to open');
    await stack.control(`/payments/${payment.transactionId}/outcome`, { status: 'COMPLETED' });
    await sse.waitForEvents(1);
    sse.close();
    assert.equal(conformance.invalid('PaymentStatus', sse.data()[0]), undefined);
    // The completion wrote the merchant's events (sent to a closed port, so they wait for a retry).
    const { id } = await eventually(async () => (await stack.operator('/api/events')).body.events[0]);
    await stack.operator('/api/events?status=lost');
    await stack.operator(`/api/events/evt_unknown`);
    await stack.operator(`/api/events/${id}`);
    await stack.operator(`/api/events/${id}/redeliver`, { method: 'POST' });
    const [endpoint] = (await stack.operator('/api/events')).body.endpoints;
    await stack.operator(`/api/events/endpoints/${endpoint.id}/enable`, { method: 'POST' });
    await stack.operator('/api/events/endpoints/ep_unknown/enable', { method: 'POST' });
    // Event destinations: one added (on loopback: the proxy itself answers its test event), read,
    // changed, tested, its log read, its secret rotated, its backlog skipped, then removed.
    const added = await stack.operator('/api/event-destinations', {
      body: { url: `${stack.proxy.origin}/healthz`, enabledEvents: ['checkout.paid'] },
    });
    const destinationId = (added.body.destination as { id: string }).id;
    await stack.operator('/api/event-destinations', { body: { url: 'http://10.0.0.1/hook' } });
    await stack.operator('/api/event-destinations');
    await stack.operator(`/api/event-destinations/${destinationId}`);
    await stack.operator(`/api/event-destinations/${destinationId}`, { method: 'PATCH', body: { enabled: false } });
    await stack.operator(`/api/event-destinations/${endpoint.id}`, { method: 'PATCH', body: { enabled: false } });
    await stack.operator(`/api/event-destinations/${destinationId}/test`, { method: 'POST' });
    await stack.operator(`/api/event-destinations/${destinationId}/deliveries?status=pending`);
    await stack.operator(`/api/event-destinations/${destinationId}/deliveries?cursor=x`);
    await stack.operator(`/api/event-destinations/${destinationId}/rotate-secret`, { body: { expiresInSeconds: 60 } });
    await stack.operator(`/api/event-destinations/${destinationId}/skip`, { method: 'POST' });
    await as(origin, await stack.addOperator('viewer', 'Destination Viewer'))(
      `/api/event-destinations/${destinationId}/skip`,
      {
        method: 'POST',
      },
    );
    await stack.operator(`/api/event-destinations/${destinationId}`, { method: 'DELETE' });
    await stack.operator(`/api/event-destinations/${destinationId}`, { method: 'DELETE' });
    // Merchant keys: one made, used outside its scope (403), rolled, revoked (and again: 409).
    const made = await stack.operator('/api/merchant-keys', { body: { name: 'Reader', scopes: ['checkouts:read'] } });
    await stack.operator('/api/merchant-keys');
    await http(`${origin}/api/checkouts`, {
      headers: { Authorization: `Bearer ${made.body.secret as string}` },
      body: { amount: '1.00', currencyCode: 'EUR', reference: 'SCOPE' },
    });
    const rolledKey = await stack.operator(`/api/merchant-keys/${made.body.key.id as string}/roll`, {
      body: { expiresInSeconds: 0 },
    });
    await stack.operator(`/api/merchant-keys/${rolledKey.body.key.id as string}`, { method: 'DELETE' });
    await stack.operator(`/api/merchant-keys/${rolledKey.body.key.id as string}`, { method: 'DELETE' });
    await stack.operator(`/api/events/redeliver`, { body: { status: 'failed', since: '2026-01-01T00:00:00Z' } });
    await stack.operator(`/api/events/redeliver`, { body: { status: 'delivered' } });
    // The on-ramp: a customer's purchase from quote to stream, and the operator's two actions on
    // purchases whose order the issuer (here, by hand) cancelled.
    const wallet = Wallet.createRandom();
    const customer = onrampCustomer(stack, wallet);
    await stack.browser('/api/onramp/config');
    await customer.quote({ amount: '0' });
    await customer.quote({ amount: '501' });
    await stack.browser('/api/onramp/purchases', { body: { quoteId: 'quo_unknownquoteunknown', signature: '0x00' } });
    await customer.purchase({}, Wallet.createRandom());
    const delayed: string[] = [];
    for (const amount of ['3', '4']) {
      const { purchaseToken, purchaseId } = await customer.buyAndPay({ amount });
      const { order } = await eventually(async () => {
        const detail = (await stack.operator(`/api/onramp/purchases/${purchaseId}`)).body;
        return detail.order ? detail : undefined;
      });
      await stack.approved(
        stack.operator(`/api/orders/${order.orderId}`, { method: 'PUT', body: { orderStatus: 'Cancelled' } }),
      );
      await customer.until(purchaseToken, 'delayed');
      const purchaseStream = openSse(`${origin}/api/onramp/status/${purchaseToken}/events`, { Origin: SHOP_ORIGIN });
      await purchaseStream.waitForEvents(1);
      purchaseStream.close();
      assert.equal(conformance.invalid('Purchase', purchaseStream.data()[0]), undefined);
      delayed.push(purchaseId);
    }
    await stack.browser('/api/onramp/status/unknown');
    await stack.operator('/api/onramp/purchases?state=delayed');
    await stack.operator('/api/onramp/purchases?state=lost');
    await stack.operator('/api/onramp/purchases/pur_00000000000000000000');
    await stack.approved(stack.operator(`/api/onramp/purchases/${delayed[0]!}/retry-mint`, { body: {} }));
    await stack.operator(`/api/onramp/purchases/${delayed[1]!}/refund`, { body: {} });
    await stack.approved(
      stack.operator(`/api/onramp/purchases/${delayed[1]!}/refund`, { body: { note: 'Returned by SEPA' } }),
    );
    // Infrastructure, scripts and this document.
    for (const path of ['/livez', '/healthz', '/readyz', '/openapi.json', '/docs', '/docs/redoc.standalone.js'])
      await http(`${origin}${path}`);
    await stack.operator('/metrics');
    await http(`${origin}/metrics`);
    // Operators as people: device sign-in, who I am, a refusal for a missing permission, signing out.
    const viewer = await stack.addOperator('viewer');
    const device = (await http(`${origin}/operator/device/code`, { body: { client_name: 'OpenAPI walk' } })).body;
    const poll = { grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: device.device_code };
    await http(`${origin}/operator/device/token`, { body: poll });
    await http(`${origin}/operator/device/code`, { body: { client_name: '' } });
    await stack.operator('/operator/device/approve', { body: { user_code: 'BBBB-BBBB', approve: true } });
    await stack.operator('/operator/device/approve', { body: { user_code: device.user_code, approve: true } });
    await stack.operator('/operator/device/approve', { body: { user_code: device.user_code, approve: true } });
    const deviceToken = (await http(`${origin}/operator/device/token`, { body: poll })).body.access_token as string;
    await as(origin, viewer)('/api/operator/me');
    await as(origin, viewer)('/api/payments/export');
    await http(`${origin}/api/operator/me`, { headers: { Authorization: 'Bearer kassa_pat_unknown' } });
    await as(origin, { headers: { Authorization: `Bearer ${deviceToken}` } })('/api/operator/me/credential', {
      method: 'DELETE',
    });
    // The team, one's own tokens, sessions and passkeys, and the audit.
    await stack.operator('/api/operators');
    const invited = (
      await stack.operator('/api/operators', { body: { name: 'Invited', email: 'invited@shop.test', role: 'support' } })
    ).body;
    await stack.operator('/api/operators', { body: { name: 'Again', email: 'INVITED@shop.test', role: 'support' } });
    await stack.operator('/api/operators', { body: { name: 'Bad', email: 'not-an-address', role: 'support' } });
    await stack.operator(`/api/operators/${invited.operator.operatorId}`, {
      method: 'PATCH',
      body: { role: 'viewer' },
    });
    await stack.operator('/api/operators/op_0000000000000000000000', { method: 'PATCH', body: { state: 'suspended' } });
    await stack.operator(`/api/operators/${invited.operator.operatorId}/sessions`);
    await stack.operator(`/api/operators/op_0000000000000000000000/sessions`);
    await stack.operator(`/api/operators/${invited.operator.operatorId}`, { method: 'DELETE' });
    await stack.operator(`/api/operators/${invited.operator.operatorId}`, { method: 'DELETE' });
    const token = (await stack.operator('/api/operator/tokens', { body: { name: 'walk', role: 'viewer' } })).body;
    await as(origin, viewer)('/api/operator/tokens', { body: { name: 'up', role: 'admin' } });
    await stack.operator('/api/operator/tokens');
    await stack.operator('/api/operator/sessions');
    // Passkeys are registered by the sign-in page; one stored here stands for it.
    await stack.proxy.services.store.operators.insertPasskey({
      credentialId: 'walk-passkey',
      operatorId: stack.admin.operatorId,
      publicKey: 'pQECAyYgASFYIA',
      counter: 0,
      transports: ['internal'],
      deviceType: 'multiDevice',
      backedUp: true,
      name: 'Laptop',
      createdAt: Date.now(),
      lastUsedAt: null,
    });
    await stack.operator('/api/operator/passkeys');
    await stack.operator('/api/operator/passkeys/walk-passkey', { method: 'DELETE' });
    await stack.operator('/api/operator/passkeys/unknown', { method: 'DELETE' });
    await as(origin, viewer)(`/api/approvals/${second.approvalId}/approve`, { method: 'POST' });
    await stack.operator(`/api/credentials/${token.credential.credentialId}`, { method: 'DELETE' });
    await stack.operator('/api/credentials/cred_0000000000000000000000', { method: 'DELETE' });
    await stack.operator('/api/audit?limit=5');
    await stack.operator('/api/audit?cursor=x');
    await stack.operator('/api/audit/export?format=csv');
    await stack.operator('/api/audit/export?format=xml');
    await as(origin, viewer)('/api/audit');
    await http(`${origin}/kassa.js`);
    await http(`${origin}/kassa/not-built.js`);
    // Payment links, by the merchant's server and by an operator; a customer starts paying one.
    for (const base of ['/api/links', '/api/operator/links']) {
      const as = base === '/api/links' ? stack.merchant : stack.operator;
      const made = await as(base, { body: { title: 'Lesson', amount: '5', currencyCode: 'EUR', reference: 'L-{n}' } });
      const code = made.body.code as string;
      await as(base, { body: { title: 'Lesson' } });
      await as(`${base}?limit=1`);
      await as(`${base}/${code}`);
      await as(`${base}/${code}/pause`, { method: 'POST' });
      await as(`${base}/${code}/pause`, { method: 'POST' });
      await http(`${origin}/api/links/${code}/checkout`, { body: {} });
      await as(`${base}/${code}/resume`, { method: 'POST' });
      // The page a customer can pay on, and its script.
      const page = await http(`${origin}/l/${code}`, { headers: { Accept: 'text/html' } });
      await http(`${origin}${/src="(\/links\/scripts\/[^"]+)"/.exec(page.text)?.[1]}`);
      await http(`${origin}/api/links/${code}/checkout`, { body: {} });
      await http(`${origin}/api/links/${code}/checkout`, { body: { amount: '6' } });
      await as(`${base}/${code}/payments`);
      await as(`${base}/${code}/payments/export`);
      await as(`${base}/${code}/end`, { method: 'POST' });
      await http(`${origin}/api/links/${code}/checkout`, { body: {} });
      await as(`${base}/AAAAAAAAAAAAAAAAAAAAAAAA`);
      await http(`${origin}/l/${code}`, { headers: { Accept: 'text/html' } });
      await http(`${origin}/l/${code}/qr.svg`);
      await http(`${origin}/l/${code}/qr.png`);
    }
    // Counter mode: asked for at the till, read, followed (the stream's head), cancelled; refused ones.
    const asked = await stack.operator('/api/operator/counter', { body: { amount: '12.50', note: 'Table 4' } });
    const counterCode = asked.body.code as string;
    await stack.operator(`/api/operator/counter/${counterCode}`);
    const counterStream = openSse(`${origin}/api/operator/counter/${counterCode}/events`, {
      Authorization: `Bearer ${stack.admin.token}`,
    });
    await counterStream.waitForEvents(1);
    await stack.operator(`/api/operator/counter/${counterCode}/cancel`, { method: 'POST' });
    await counterStream.waitForClose();
    await stack.operator(`/api/operator/counter/${counterCode}/cancel`, { method: 'POST' });
    await stack.operator('/api/operator/counter', { body: { amount: '100000', note: 'Too much' } });
    await stack.operator('/api/operator/counter', { body: { amount: '1' } });
    await stack.operator('/api/operator/counter/AAAAAAAAAAAAAAAAAAAAAAAA');
    await stack.operator('/api/operator/counter/AAAAAAAAAAAAAAAAAAAAAAAA/events');
    await as(origin, viewer)('/api/operator/counter', { body: { amount: '1', note: 'No' } });
    await stack.operator('/api/operator/links?kind=counter');
    await stack.operator('/api/operator/links?kind=other');
    await http(`${origin}/l/AAAAAAAAAAAAAAAAAAAAAAAA`);
    await http(`${origin}/l/AAAAAAAAAAAAAAAAAAAAAAAA`, { headers: { Accept: 'text/html' } });
    await http(`${origin}/l/AAAAAAAAAAAAAAAAAAAAAAAA/qr.svg`);
    await http(`${origin}/links/scripts/link-0000000000000000.js`);
    // The operators' sign-in: a link's first passkey, a sign-in, the person's own things, the pages.
    await signinJourney(stack);
    // Last, as it takes the emulator's webhook for itself: a proxy with a threshold acts at once below it.
    const small = await startStack({ reuseSandbox: stack.sandbox, env: { KASSA_APPROVAL_THRESHOLD: '100' } });
    try {
      const direct = await small.operator('/api/orders', { body: { ...orderBody, customerOrder: 'PO-78' } });
      await small.operator(`/api/orders/${direct.body.orderId}`, { method: 'PUT', body: { amount: '30' } });
    } finally {
      await small.stop();
    }

    // Every operation but the streams (read above) was answered with a success, each answer as documented.
    const succeeded = new Set(
      [...conformance.seen].filter((seen) => /\s[23]/.test(seen)).map((seen) => seen.split(' ')[0]),
    );
    // The widget's scripts are there only once it is built (the end-to-end suites build it).
    const unseen = [
      'streamPaymentStatus',
      'streamPaymentChanges',
      'streamPurchaseStatus',
      'followCounterPayment',
      'getWidgetScript',
      'getWidgetChunk',
    ];
    assert.deepEqual(
      OPERATION_IDS.filter((id) => !succeeded.has(id) && !unseen.includes(id)),
      [],
    );
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
