import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { HandoffCodes } from '../../proxy/handoff/handoff-codes.ts';
import { pageLanguage } from '../../proxy/handoff/handoff-page.ts';
import { publicOrigin } from '../../proxy/payments/return-url.ts';
import { HANDOFF_TTL_MS, handoffOutcome, returnOutcome } from '../../proxy/handoff/handoff-routes.ts';
import { FUZZ_RUNS } from '../support/arbitraries.ts';
import { http } from '../support/http.ts';
import { eventually, startStack, type Stack } from '../support/stack.ts';

const HTML = { Accept: 'text/html,application/xhtml+xml' };

describe('proxy: hand-off codes ("pay with your phone")', () => {
  const codes = new HandoffCodes('a webhook secret of some length');

  it('a code reads back as the transaction id it was issued for, and is short for a UUID', () => {
    fc.assert(
      fc.property(fc.oneof(fc.uuid(), fc.string({ minLength: 1, maxLength: 60 })), (transactionId) => {
        assert.equal(codes.read(codes.issue(transactionId)), transactionId);
      }),
      { numRuns: FUZZ_RUNS },
    );
    assert.equal(codes.issue(randomUUID()).length, 34);
  });

  it('nothing else reads as a code: random text, a changed character, another proxy’s code', () => {
    const other = new HandoffCodes('another secret of some length');
    fc.assert(
      fc.property(fc.uuid(), fc.nat(33), fc.string({ maxLength: 200 }), (transactionId, at, junk) => {
        const code = codes.issue(transactionId);
        const flipped = code.slice(0, at) + (code[at] === 'A' ? 'B' : 'A') + code.slice(at + 1);
        assert.equal(codes.read(flipped), undefined, flipped);
        assert.equal(codes.read(other.issue(transactionId)), undefined);
        assert.equal(codes.read(junk), undefined);
      }),
      { numRuns: FUZZ_RUNS },
    );
  });

  it('leads to the bank only while the payment is open and younger than the hand-off lifetime', () => {
    const now = Date.now();
    const open = { status: 'PENDING', networkStatus: null, createdAt: now - 1_000 };
    assert.equal(handoffOutcome(open, now), 'bank');
    assert.equal(handoffOutcome({ ...open, createdAt: now - HANDOFF_TTL_MS }, now), 'expired');
    assert.equal(handoffOutcome({ ...open, status: 'COMPLETED' }, now), 'completed');
    assert.equal(handoffOutcome({ ...open, status: 'FAILED', networkStatus: 'CANCELLED' }, now), 'cancelled');
    assert.equal(handoffOutcome({ ...open, status: 'FAILED', networkStatus: 'REJECTED' }, now), 'rejected');
    assert.equal(handoffOutcome({ ...open, status: 'FAILED', networkStatus: 'EXPIRED' }, now), 'failed');
    assert.equal(handoffOutcome(undefined, now), 'invalid');
  });

  it('back from the bank, a phone is told the outcome, or that it is being confirmed', () => {
    assert.equal(returnOutcome({ status: 'PENDING', networkStatus: null }), 'pending');
    assert.equal(returnOutcome({ status: 'PENDING', networkStatus: 'AUTHORISED' }), 'pending');
    assert.equal(returnOutcome({ status: 'COMPLETED', networkStatus: 'PAYMENT_EXECUTED_CREDITED' }), 'completed');
    assert.equal(returnOutcome({ status: 'FAILED', networkStatus: 'CANCELLED' }), 'cancelled');
    assert.equal(returnOutcome({ status: 'FAILED', networkStatus: 'REJECTED' }), 'rejected');
    assert.equal(returnOutcome({ status: 'FAILED', networkStatus: null }), 'failed');
  });

  it('the proxy’s own address: the configured one, else only a loopback request’s (a Host header is not believed)', () => {
    assert.equal(
      publicOrigin('https://pay.shop.example', 'http://10.0.0.5:8787/api/payments'),
      'https://pay.shop.example',
    );
    assert.equal(publicOrigin(null, 'http://127.0.0.1:8787/api/payments'), 'http://127.0.0.1:8787');
    assert.equal(publicOrigin(null, 'http://localhost:9/api/payments'), 'http://localhost:9');
    for (const url of [
      'http://evil.example/api/payments',
      'http://10.0.0.5:8787/x',
      'https://127.0.0.1.evil.example/x',
    ])
      assert.equal(publicOrigin(null, url), undefined, url);
  });

  it('the page’s language comes from Accept-Language, by quality', () => {
    assert.equal(pageLanguage('fr-CH, de;q=0.9'), 'fr');
    assert.equal(pageLanguage('ja, nl;q=0.2, es;q=0.8'), 'es');
    assert.equal(pageLanguage('*, en;q=0'), 'en');
    assert.equal(pageLanguage(undefined), 'en');
    fc.assert(
      fc.property(fc.string({ maxLength: 600 }), (header) => {
        assert.ok(['en', 'de', 'fr', 'es', 'nl'].includes(pageLanguage(header)));
      }),
      { numRuns: FUZZ_RUNS },
    );
  });
});

describe('proxy: the hand-off routes', () => {
  let stack: Stack;
  before(async () => {
    stack = await startStack();
  });
  after(() => stack.stop());

  const started = async () => {
    const created = await stack.pay(await stack.checkout());
    assert.equal(created.status, 201);
    return created.body as { statusToken: string; flowUrl: string; transactionId: string };
  };

  it('the shop’s page gets a code for its payment; other origins and unknown payments do not', async () => {
    const payment = await started();
    const path = `/api/payments/status/${payment.statusToken}/handoff`;
    const answer = await stack.browser(path);
    assert.equal(answer.status, 200);
    assert.match(answer.body.code, /^[A-Za-z0-9_-]{34}$/);
    // Private to this browser, but not no-store: the shop's page showing the QR code stays in the back/forward cache.
    assert.equal(answer.headers.get('cache-control'), 'private, no-cache');
    assert.ok(Date.parse(answer.body.expiresAt) > Date.now());
    assert.equal((await stack.browser(path, { headers: { Origin: 'https://evil.example' } })).status, 403);
    assert.equal((await stack.browser(`/api/payments/status/${'A'.repeat(43)}/handoff`)).status, 404);
    assert.equal((await stack.browser('/api/payments/status/short/handoff')).status, 404);
  });

  it('/p/<code> sends the phone to the bank while the payment is open, then says how it ended', async () => {
    const payment = await started();
    const { code } = (await stack.browser(`/api/payments/status/${payment.statusToken}/handoff`)).body;
    const open = await http(`${stack.proxy.origin}/p/${code}`, { headers: HTML });
    assert.equal(open.status, 303);
    assert.equal(open.headers.get('location'), payment.flowUrl);
    assert.equal(open.headers.get('referrer-policy'), 'no-referrer');

    await stack.control(`/payments/${payment.transactionId}/outcome`, { status: 'FAILED', networkStatus: 'REJECTED' });
    const page = await eventually(async () => {
      const shown = await http(`${stack.proxy.origin}/p/${code}`, { headers: { ...HTML, 'Accept-Language': 'nl' } });
      return shown.status === 303 ? undefined : shown;
    }, 'the page saying how it ended');
    assert.equal(page.status, 200);
    assert.match(page.text, /<html lang="nl">/);
    assert.match(page.text, /data-outcome="rejected"/);
    assert.match(page.text, /Uw bank heeft deze geweigerd/);
    assert.doesNotMatch(page.text, /<script/i);
    assert.match(page.headers.get('content-security-policy')!, /^default-src 'none'; style-src 'sha256-/);
    // The code is spent: the payment is final, so there is no code for it any more.
    assert.equal((await stack.browser(`/api/payments/status/${payment.statusToken}/handoff`)).status, 409);
  });

  it('back from the bank, the phone that opened /p/ sees how it ended; any other browser goes on to the shop', async () => {
    const payment = await started();
    const back = `${stack.proxy.origin}/r/${payment.statusToken}`;
    const shopPage = `${stack.config.returnUrls[0]}?kassa_status=${payment.statusToken}`;
    const { code } = (await stack.browser(`/api/payments/status/${payment.statusToken}/handoff`)).body;
    const opened = await http(`${stack.proxy.origin}/p/${code}`, { headers: HTML });
    const cookie = opened.headers.get('set-cookie')!;
    assert.match(
      cookie,
      new RegExp(`^kassa_phone=${code}; Max-Age=1800; Path=/r/${payment.statusToken}; HttpOnly; SameSite=Lax$`),
    );
    const phone = { ...HTML, Cookie: cookie.split(';')[0]!, 'Accept-Language': 'de-DE, en;q=0.5' };

    // Not yet confirmed: a page that says so and asks again by itself.
    const pending = await http(back, { headers: phone });
    assert.equal(pending.status, 200);
    assert.match(pending.text, /data-outcome="pending"/);
    assert.match(pending.text, /<meta http-equiv="refresh" content="2" \/>/);
    assert.match(pending.text, /Wir bestätigen Ihre Zahlung/);
    assert.equal(pending.headers.get('cache-control'), 'no-store');
    assert.doesNotMatch(pending.text, /<script/i);

    // A computer (no cookie), or a cookie for another payment, goes on to the shop's page as before.
    for (const headers of [
      HTML,
      { ...HTML, Cookie: `kassa_phone=${new HandoffCodes(stack.config.webhookSecret).issue(randomUUID())}` },
      { Cookie: 'kassa_phone=junk' },
    ]) {
      const desktop = await http(back, { headers });
      assert.equal(desktop.status, 303);
      assert.equal(desktop.headers.get('location'), shopPage);
    }

    await stack.control(`/payments/${payment.transactionId}/outcome`, { status: 'FAILED', networkStatus: 'CANCELLED' });
    const page = await eventually(async () => {
      const shown = await http(back, { headers: phone });
      return /pending/.test(shown.text) ? undefined : shown;
    }, 'the page saying how it ended');
    assert.match(page.text, /data-outcome="cancelled"/);
    assert.match(page.text, /Sie haben sie bei Ihrer Bank abgebrochen/);
    assert.doesNotMatch(page.text, /http-equiv="refresh"/);
    assert.equal(
      (await http(back, { headers: HTML })).headers.get('location'),
      shopPage,
      'final: the computer still goes to the shop',
    );
  });

  it('a return address the proxy does not know leads to the shop’s first return page, never elsewhere', async () => {
    for (const token of ['A'.repeat(43), 'short', '..%2F..%2Fevil']) {
      const answer = await http(`${stack.proxy.origin}/r/${token}`, { headers: HTML });
      assert.equal(answer.status, 303, token);
      assert.equal(answer.headers.get('location'), stack.config.returnUrls[0]);
    }
  });

  it('a code the proxy did not issue: a page for a phone, the usual error body for anything else', async () => {
    const page = await http(`${stack.proxy.origin}/p/${'A'.repeat(34)}`, { headers: HTML });
    assert.equal(page.status, 404);
    assert.match(page.text, /This link is not valid/);
    const api = await http(`${stack.proxy.origin}/p/not-a-code`);
    assert.equal(api.status, 404);
    assert.equal(api.body.error, 'Unknown hand-off link');
  });

  it('the request log keeps only the start of a code', async () => {
    const payment = await started();
    const { code } = (await stack.browser(`/api/payments/status/${payment.statusToken}/handoff`)).body;
    await http(`${stack.proxy.origin}/p/${code}`, { headers: HTML });
    const lines = stack.logs.join('\n');
    assert.doesNotMatch(lines, new RegExp(code));
    assert.match(lines, new RegExp(`/p/${code.slice(0, 4)}…`));
  });
});
