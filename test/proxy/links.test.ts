import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { brotliDecompressSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { kassaEventSchema, type KassaEventOf } from '../../schemas/events.ts';
import { http, rawGet, type HttpInit, type Json } from '../support/http.ts';
import type { TestOperator } from '../support/operators.ts';
import { eventually, SHOP_ORIGIN, startStack, type Stack } from '../support/stack.ts';
import { link } from '../support/store-records.ts';
import { startReceiver } from '../support/webhook-receiver.ts';

const LESSON = { title: 'Piano lesson', amount: '45.00', currencyCode: 'EUR', reference: 'LESSON-{n}' };

/** Payment links over loopback HTTP on the store KASSA_TEST_STORE names, paid at the sandbox bank. */
describe('proxy: payment links', () => {
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let stack: Stack;

  before(async () => {
    receiver = await startReceiver();
    stack = await startStack({
      env: { KASSA_EVENTS_URL: receiver.url, KASSA_EVENTS_SECRET: secret, KASSA_OPEN_AMOUNT: '1..500 EUR' },
      proxy: { eventPollMs: 50, linkSweepMs: 100 },
    });
  });
  after(async () => {
    await stack.stop();
    await receiver.close();
  });

  const as =
    (token: string) =>
    (path: string, init: HttpInit = {}) =>
      http(`${stack.proxy.origin}${path}`, {
        ...init,
        headers: { Authorization: `Bearer ${token}`, ...init.headers },
      });
  const keyWith = async (scopes: string[]) =>
    (await stack.operator('/api/merchant-keys', { body: { name: scopes.join(' '), scopes } })).body as {
      key: { id: string };
      secret: string;
    };
  /** The customer on the link's page starts paying (the shop's origin, no credential). */
  const start = (code: string, body: Json = {}) => stack.browser(`/api/links/${code}/checkout`, { body });
  const paid = async (code: string, body: Json = {}) => {
    const started = await start(code, body);
    assert.equal(started.status, 201, started.text);
    const payment = await stack.pay(started.body.checkoutId as string);
    await stack.control(`/payments/${payment.body.transactionId}/outcome`, { status: 'COMPLETED' });
    return { checkoutId: started.body.checkoutId as string, transactionId: payment.body.transactionId as string };
  };
  const auditOf = async (code: string) =>
    ((await stack.operator(`/api/audit?targetId=${code}&limit=50`)).body.records as Json[]).map((record) => [
      record.action,
      record.actor.name,
    ]);

  it('the merchant’s server manages links with a key that has links:manage, each change audited under the key', async () => {
    const key = await keyWith(['links:manage']);
    const merchant = as(key.secret);
    const made = await merchant('/api/links', { body: { ...LESSON, maxUses: 3, description: 'Thursdays' } });
    assert.equal(made.status, 201, made.text);
    const code = made.body.code as string;
    assert.match(code, /^[A-Za-z0-9_-]{24}$/);
    assert.equal(made.body.url, `${stack.proxy.origin}/l/${code}`);
    assert.deepEqual(made.body.createdBy, { kind: 'merchant-key', id: key.key.id });
    assert.deepEqual([made.body.state, made.body.status, made.body.payments.count], ['active', 'active', 0]);

    assert.equal((await merchant(`/api/links/${code}/pause`, { method: 'POST' })).body.status, 'paused');
    const twice = await merchant(`/api/links/${code}/pause`, { method: 'POST' });
    assert.equal(twice.status, 409);
    assert.equal((await merchant(`/api/links/${code}/resume`, { method: 'POST' })).body.state, 'active');
    assert.equal((await merchant(`/api/links/${code}/end`, { method: 'POST' })).body.state, 'ended');
    assert.equal((await merchant(`/api/links/${code}`)).body.status, 'ended');
    assert.ok(((await merchant('/api/links')).body.links as Json[]).some((link) => link.code === code));

    const name = `merchant key ${key.key.id}`;
    assert.deepEqual((await auditOf(code)).reverse(), [
      ['link.created', name],
      ['link.paused', name],
      ['link.resumed', name],
      ['link.ended', name],
    ]);

    // Refused: no key (401), a key without the scope (403 naming it), KASSA_MERCHANT_KEY has every scope.
    assert.equal((await http(`${stack.proxy.origin}/api/links`)).status, 401);
    const other = await keyWith(['checkouts:create']);
    const refused = await as(other.secret)('/api/links', { body: LESSON });
    assert.equal(refused.status, 403);
    assert.match(refused.body.error as string, /links:manage/);
    assert.equal((await stack.merchant('/api/links', { body: LESSON })).status, 201);
  });

  it('operators read links with links:read and change them with links:manage (finance and admin); audited by name', async () => {
    const viewer: TestOperator = await stack.addOperator('viewer', 'Vera Viewer');
    const finance: TestOperator = await stack.addOperator('finance', 'Fin Ance');
    const refused = await as(viewer.token)('/api/operator/links', { body: LESSON });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.permission, 'links:manage');
    const made = await as(finance.token)('/api/operator/links', { body: LESSON });
    assert.equal(made.status, 201, made.text);
    const code = made.body.code as string;
    assert.deepEqual(made.body.createdBy, { kind: 'operator', id: finance.operatorId });
    assert.equal((await as(viewer.token)(`/api/operator/links/${code}`)).body.code, code);
    assert.equal((await as(viewer.token)(`/api/operator/links/${code}/pause`, { method: 'POST' })).status, 403);
    assert.equal((await as(finance.token)(`/api/operator/links/${code}/pause`, { method: 'POST' })).status, 200);
    assert.deepEqual((await auditOf(code)).reverse(), [
      ['link.created', 'Fin Ance'],
      ['link.paused', 'Fin Ance'],
    ]);
  });

  it('a paid link sends link.paid with the link and the payment, and counts it once: its payments, total and CSV', async () => {
    const made = await stack.merchant('/api/links', {
      body: { ...LESSON, amount: undefined, openAmount: { min: '5' } },
    });
    const code = made.body.code as string;
    const first = await paid(code, { amount: '12.50' });
    const second = await paid(code, { amount: '30' });

    const linkEvents = await eventually(() => {
      const found = receiver.received
        .filter((request) => request.body.includes('"link.paid"'))
        .map((request) => {
          const headers = Object.fromEntries(
            ['webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => [
              name,
              String(request.headers[name]),
            ]),
          );
          return kassaEventSchema.parse(new Webhook(secret).verify(request.body, headers)) as KassaEventOf<'link.paid'>;
        })
        .filter((event) => event.data.link.code === code);
      return found.length === 2 ? found : undefined;
    }, 'two link.paid events');
    const byPayment = new Map(linkEvents.map((event) => [event.data.payment.transactionId, event]));
    const one = byPayment.get(first.transactionId)!;
    assert.equal(one.data.payment.status, 'COMPLETED');
    assert.equal(one.data.payment.checkoutId, first.checkoutId);
    assert.equal(one.data.payment.amount, '12.50');
    assert.ok(byPayment.has(second.transactionId));
    assert.deepEqual(linkEvents.map((event) => event.sequence).sort(), [1, 2]);

    const link = (await stack.merchant(`/api/links/${code}`)).body;
    assert.deepEqual([link.payments.count, link.payments.total, link.pending.count], [2, '42.5', 0]);
    assert.ok(link.payments.lastPaidAt);
    const payments = (await stack.merchant(`/api/links/${code}/payments`)).body.payments as Json[];
    assert.deepEqual(
      payments.map((payment) => [payment.number, payment.reference, payment.state, payment.transactionId]),
      [
        [2, 'LESSON-2', 'paid', second.transactionId],
        [1, 'LESSON-1', 'paid', first.transactionId],
      ],
    );
    // Every link payment is a normal payment: the operator's search finds it by its reference.
    const search = await stack.operator('/api/payments?reference=LESSON-1');
    assert.ok((search.body.payments as Json[]).some((payment) => payment.transactionId === first.transactionId));

    const csv = await stack.merchant(`/api/links/${code}/payments/export`);
    assert.match(String(csv.headers.get('content-type')), /^text\/csv/);
    const lines = csv.text.trim().split('\r\n');
    assert.equal(lines[0], 'number,reference,amount,currencyCode,state,createdAt,settledAt,checkoutId,transactionId');
    assert.equal(lines.length, 3);
    assert.ok(lines[2]!.startsWith(`1,LESSON-1,12.50,EUR,paid,`) && lines[2]!.endsWith(first.transactionId));
  });

  it('two customers racing for a single-use link: one gets a checkout, the other is told it is used up, before any bank', async () => {
    const made = await stack.merchant('/api/links', { body: { ...LESSON, maxUses: 1 } });
    const code = made.body.code as string;
    const answers = await Promise.all([start(code), start(code)]);
    assert.deepEqual(answers.map((answer) => answer.status).sort(), [201, 422]);
    const refused = answers.find((answer) => answer.status === 422)!;
    assert.equal(refused.body.details.reason, 'used-up');
    assert.equal(refused.headers.get('access-control-allow-origin'), SHOP_ORIGIN);
    const link = (await stack.merchant(`/api/links/${code}`)).body;
    assert.deepEqual([link.status, link.pending.count, link.payments.count], ['used-up', 1, 0]);
  });

  it('refuses an amount out of the link’s bounds, and tells a paused, ended or expired link apart', async () => {
    const open = (
      await stack.merchant('/api/links', { body: { ...LESSON, amount: undefined, openAmount: { max: '20' } } })
    ).body.code as string;
    const tooMuch = await start(open, { amount: '20.01' });
    assert.equal(tooMuch.status, 400);
    assert.deepEqual(tooMuch.body.details, {
      reason: 'amount-out-of-bounds',
      min: '1',
      max: '20',
      currencyCode: 'EUR',
    });
    await stack.merchant(`/api/links/${open}/pause`, { method: 'POST' });
    assert.deepEqual(
      [(await start(open, { amount: '5' })).status, (await start(open, { amount: '5' })).body.details],
      [409, { reason: 'paused' }],
    );
    await stack.merchant(`/api/links/${open}/end`, { method: 'POST' });
    const ended = await start(open, { amount: '5' });
    assert.deepEqual([ended.status, ended.body.details], [410, { reason: 'ended' }]);
    assert.equal((await start('AAAAAAAAAAAAAAAAAAAAAAAA')).status, 404);
    const outOfShopBounds = await stack.merchant('/api/links', {
      body: { ...LESSON, amount: undefined, openAmount: { max: '501' } },
    });
    assert.equal(outOfShopBounds.status, 400);
    assert.match(outOfShopBounds.body.error as string, /KASSA_OPEN_AMOUNT/);
  });

  it('a link ended while a customer’s page is open: their checkout starts no payment, nothing reaches the bank', async () => {
    const { code } = (await stack.merchant('/api/links', { body: LESSON })).body as { code: string };
    const started = await start(code);
    assert.equal(started.status, 201, started.text);
    await stack.merchant(`/api/links/${code}/end`, { method: 'POST' });
    const paying = await stack.pay(started.body.checkoutId as string);
    assert.deepEqual([paying.status, paying.body.details], [410, { reason: 'ended' }]);
    const payments = await stack.merchant(`/api/links/${code}/payments`);
    assert.deepEqual(
      (payments.body.payments as Json[]).map((payment) => [payment.state, payment.transactionId]),
      [['pending', null]],
      'the use is held, with no payment',
    );
  });

  it('an open link with a cap on its total takes at most what is left: the bounds narrowed, then complete', async () => {
    const made = await stack.merchant('/api/links', {
      body: { ...LESSON, amount: undefined, openAmount: { min: '5', max: '100' }, maxTotal: '60' },
    });
    const code = made.body.code as string;
    assert.equal((await start(code, { amount: '40' })).status, 201, 'a use of 40 held');
    // 20 left: more is out of the bounds as they are now, not "complete"; the page says the same.
    const tooMuch = await start(code, { amount: '30' });
    assert.deepEqual(
      [tooMuch.status, tooMuch.body.details],
      [400, { reason: 'amount-out-of-bounds', min: '5', max: '20', currencyCode: 'EUR' }],
    );
    const page = await http(`${stack.proxy.origin}/l/${code}`, { headers: { Accept: 'text/html' } });
    assert.match(page.text, /You choose the amount: €5\.00 to €20\.00/);
    assert.equal((await start(code, { amount: '20' })).status, 201, 'what is left');
    // Nothing left for the smallest amount: complete, whatever is typed.
    const complete = await start(code, { amount: '5' });
    assert.deepEqual([complete.status, complete.body.details], [422, { reason: 'total-reached' }]);
    const held = (await stack.merchant(`/api/links/${code}`)).body;
    assert.deepEqual([held.status, held.pending], ['total-reached', { count: 2, total: '60' }]);
  });

  it('the link’s own page may start paying it and pay its checkout: the proxy’s origin for those two routes, no other origin', async () => {
    const code = (await stack.merchant('/api/links', { body: LESSON })).body.code as string;
    const own = stack.proxy.origin;
    const from = (origin: string, path: string, init: HttpInit = {}) =>
      http(`${own}${path}`, { ...init, headers: { Origin: origin, ...init.headers } });
    const payment = (origin: string, checkoutId: string) =>
      from(origin, '/api/payments', {
        body: { checkoutId },
        headers: { 'Idempotency-Key': `key-${randomBytes(8).toString('hex')}` },
      });
    const started = await from(own, `/api/links/${code}/checkout`, { body: {} });
    assert.equal(started.status, 201, started.text);
    assert.equal(started.headers.get('access-control-allow-origin'), own);
    const paying = await payment(own, started.body.checkoutId as string);
    assert.equal(paying.status, 201, paying.text);

    // Any other origin is refused as before, before anything is held or started.
    const foreign = 'http://127.0.0.1:1';
    const refused = await from(foreign, `/api/links/${code}/checkout`, { body: {} });
    assert.equal(refused.status, 403);
    const preflight = await from(foreign, '/api/payments', {
      method: 'OPTIONS',
      headers: { 'Access-Control-Request-Method': 'POST' },
    });
    assert.equal(preflight.status, 403);
    assert.equal((await payment(foreign, started.body.checkoutId as string)).status, 403);
    assert.equal((await stack.merchant(`/api/links/${code}`)).body.pending.count, 1, 'nothing held for the refused');
    // The proxy's origin is no shop's elsewhere: a browser route its page never calls with an Origin.
    assert.equal((await from(own, '/api/config')).status, 403);
    // The shop's own page still may.
    assert.equal((await start(code)).status, 201);
  });

  it('back from the bank, a link with no return URL shows its receipt on its page; one with a return URL goes there', async () => {
    const linkFor = async (body: Json) => (await stack.merchant('/api/links', { body: { ...LESSON, ...body } })).body;
    const returnOf = async (code: string) => {
      const started = await start(code);
      const payment = await stack.pay(started.body.checkoutId as string);
      assert.equal(payment.status, 201, payment.text);
      const back = await http(`${stack.proxy.origin}/r/${payment.body.statusToken}`);
      assert.equal(back.status, 303);
      return {
        checkoutId: started.body.checkoutId as string,
        statusToken: payment.body.statusToken as string,
        location: back.headers.get('location')!,
      };
    };
    const own = await linkFor({});
    const back = await returnOf(own.code as string);
    assert.equal(back.location, `/l/${own.code}?kassa_status=${back.statusToken}`);
    const page = await http(`${stack.proxy.origin}${back.location}`, { headers: { Accept: 'text/html' } });
    assert.equal(page.status, 200);
    assert.match(page.text, /<main data-state="receipt">/);
    assert.match(page.text, new RegExp(`"receiptOf":"${back.checkoutId}"`));
    assert.equal(page.headers.get('referrer-policy'), 'no-referrer');
    // Another link's payment is no receipt of this one: the page offers to pay.
    const other = await linkFor({});
    const elsewhere = await http(`${stack.proxy.origin}/l/${other.code}?kassa_status=${back.statusToken}`, {
      headers: { Accept: 'text/html' },
    });
    assert.match(elsewhere.text, /<main data-state="active">/);
    assert.match(elsewhere.text, /"receiptOf":null/);

    const shops = await linkFor({ returnUrl: `${SHOP_ORIGIN}/return?order=7` });
    const toShop = await returnOf(shops.code as string);
    const location = new URL(toShop.location);
    assert.equal(`${location.origin}${location.pathname}`, `${SHOP_ORIGIN}/return`);
    assert.deepEqual(
      [location.searchParams.get('order'), location.searchParams.get('kassa_status')],
      ['7', toShop.statusToken],
    );
  });

  it('its page and its script go out compressed as the browser accepts, the script revalidated by its ETag', async () => {
    const { code } = (await stack.merchant('/api/links', { body: LESSON })).body as { code: string };
    const page = await rawGet(`${stack.proxy.origin}/l/${code}`, { Accept: 'text/html', 'Accept-Encoding': 'br' });
    assert.deepEqual([page.status, page.headers['content-encoding']], [200, 'br']);
    const html = brotliDecompressSync(page.body).toString();
    assert.match(html, /<h1>Piano lesson<\/h1>/);
    const script = /<script type="module" src="(\/links\/scripts\/link-[0-9a-f]{16}\.js)">/.exec(html)![1]!;
    const sent = await rawGet(stack.proxy.origin + script, { 'Accept-Encoding': 'gzip, br' });
    assert.deepEqual([sent.status, sent.headers['content-encoding']], [200, 'br']);
    const plain = await rawGet(stack.proxy.origin + script);
    assert.deepEqual(brotliDecompressSync(sent.body), plain.body, 'the same script');
    const again = await rawGet(stack.proxy.origin + script, {
      'Accept-Encoding': 'br',
      'If-None-Match': String(sent.headers.etag),
    });
    assert.equal(again.status, 304);
  });

  it('its QR code, as SVG and PNG, from the link’s answer', async () => {
    const made = (await stack.merchant('/api/links', { body: LESSON })).body;
    assert.deepEqual(made.qr, { svg: `${made.url}/qr.svg`, png: `${made.url}/qr.png` });
    const svg = await http(made.qr.svg as string);
    assert.equal(svg.status, 200);
    assert.equal(svg.headers.get('content-type'), 'image/svg+xml');
    assert.match(
      svg.text,
      /^<\?xml[^>]*\?><svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[^>]*><rect[^>]*fill="#fff"[^>]*><\/rect><path d="M[^"]+" fill="#000"/,
    );
    const png = await fetch(made.qr.png as string);
    assert.equal(png.headers.get('content-type'), 'image/png');
    const bytes = Buffer.from(await png.arrayBuffer());
    assert.deepEqual([...bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    // Its side: the code's modules with a quiet zone of four on each side, eight pixels each.
    const side = bytes.readUInt32BE(16);
    assert.equal(side % 8, 0);
    assert.match(svg.text, new RegExp(`width="${side}" height="${side}"`));
    assert.equal((await http(`${stack.proxy.origin}/l/AAAAAAAAAAAAAAAAAAAAAAAA/qr.png`)).status, 404);
  });

  it('its page: title and amount in Open Graph tags, in the link’s language, or in words why it takes nothing', async () => {
    const page = (code: string, language = 'en') =>
      http(`${stack.proxy.origin}/l/${code}`, { headers: { Accept: 'text/html', 'Accept-Language': language } });
    const german = (await stack.merchant('/api/links', { body: { ...LESSON, language: 'de', maxUses: 1 } })).body;
    const shown = await page(german.code as string, 'fr');
    assert.equal(shown.status, 200);
    assert.match(String(shown.headers.get('content-security-policy')), /default-src 'none'/);
    assert.match(shown.text, /<html lang="de">/, 'the link’s language over the browser’s');
    assert.match(shown.text, /<meta property="og:title" content="Piano lesson" \/>/);
    assert.match(shown.text, /<meta property="og:description" content="45,00\s€ · Per Bank bezahlen" \/>/);
    assert.match(shown.text, new RegExp(`<meta property="og:url" content="${stack.proxy.origin}/l/${german.code}" />`));

    const open = (
      await stack.merchant('/api/links', {
        body: { ...LESSON, amount: undefined, openAmount: { min: '5', max: '20' } },
      })
    ).body.code as string;
    assert.match((await page(open, 'nl')).text, /U kiest het bedrag: €\s5,00 tot €\s20,00/);

    const said = async (code: string) =>
      /data-state="([a-z-]+)"[^]*?<h1>([^<]*)<\/h1>/.exec((await page(code)).text)?.slice(1);
    await start(german.code as string);
    assert.deepEqual(
      await said(german.code as string),
      ['used-up', 'Dieser Link wurde verwendet'],
      'in the link’s language',
    );
    // Its last use may be the reader's own: the page brings the script that shows this tab's checkout.
    const usedUp = (await page(german.code as string)).text;
    assert.match(usedUp, /<script type="module" src="\/kassa\.js"><\/script>/);
    assert.match(usedUp, /"payable":false/);
    await stack.merchant(`/api/links/${open}/pause`, { method: 'POST' });
    assert.deepEqual(await said(open), ['paused', 'This link is paused']);
    assert.doesNotMatch((await page(open)).text, /<script/, 'a paused link’s page has nothing to run');
    await stack.merchant(`/api/links/${open}/end`, { method: 'POST' });
    assert.deepEqual(await said(open), ['ended', 'This link has ended']);
    const expired = link({ expiresAt: Date.now() - 1 });
    await stack.proxy.services.store.links.createLink(expired);
    assert.deepEqual(await said(expired.code), ['expired', 'This link has expired']);

    const unknown = await page('AAAAAAAAAAAAAAAAAAAAAAAA', 'es');
    assert.equal(unknown.status, 404);
    assert.match(unknown.text, /<h1>Este enlace no existe<\/h1>/);
    const asJson = await http(`${stack.proxy.origin}/l/AAAAAAAAAAAAAAAAAAAAAAAA`);
    assert.deepEqual([asJson.status, asJson.body], [404, { error: 'Unknown link' }]);
  });
});
