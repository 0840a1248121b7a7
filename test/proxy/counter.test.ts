import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createApp } from '../../proxy/http/app.ts';
import { Counter, COUNTER_TTL_MS } from '../../proxy/links/counter.ts';
import { safeReturnPath } from '../../proxy/operator/signin/sso-signin.ts';
import { http, type Json } from '../support/http.ts';
import { as, type TestOperator } from '../support/operators.ts';
import { asBrowser, operatorWithPasskey } from '../support/signin.ts';
import { SoftAuthenticator } from '../support/soft-authenticator.ts';
import { openSse } from '../support/sse-client.ts';
import { eventually, startStack, type Stack } from '../support/stack.ts';

/**
 * Counter mode over loopback HTTP on the store KASSA_TEST_STORE names: an operator at a till asks for
 * a customer's payment (a single-use counter link), follows it live as the customer opens it and pays
 * at the sandbox bank, and cancels one; who may, within which bounds, and the counter's page.
 */
describe('proxy: counter mode', () => {
  let stack: Stack;
  let clerk: TestOperator;
  let till: ReturnType<typeof as>;

  before(async () => {
    stack = await startStack({ env: { KASSA_COUNTER: '0.50..100 EUR' }, proxy: { linkSweepMs: 100 } });
    clerk = await stack.addOperator('support', 'Till Clerk');
    till = as(stack.proxy.origin, clerk);
  });
  after(() => stack.stop());

  const ask = async (body: Json = {}) => {
    const asked = await till('/api/operator/counter', { body: { amount: '12.50', note: 'Table 4', ...body } });
    assert.equal(asked.status, 201, asked.text);
    return asked.body as { code: string; url: string; qr: { svg: string }; reference: string; state: string };
  };
  /** The counter's stream of the payment, as the counter page opens it. */
  const follow = (code: string) => openSse(`${stack.proxy.origin}/api/operator/counter/${code}/events`, clerk.headers);
  const states = (stream: ReturnType<typeof follow>) => stream.data().map((view) => view.state);
  /** Waits until the stream has said `count` states. */
  const said = async (stream: ReturnType<typeof follow>, count: number) => {
    await stream.waitForEvents(count);
    return states(stream);
  };
  /** The customer's phone opens the link's page, which starts paying it at once (a fixed amount). */
  const open = async (code: string) => {
    const started = await stack.browser(`/api/links/${code}/checkout`, { body: {} });
    assert.equal(started.status, 201, started.text);
    return started.body.checkoutId as string;
  };
  const countersListed = async () =>
    ((await stack.operator('/api/operator/links?kind=counter&limit=200')).body.links as Json[]).map(
      (link) => link.code as string,
    );

  it('a single-use counter link of the amount, made and audited by the clerk, followed until paid: waiting, opened, authorising, paid', async () => {
    const before = Date.now();
    const asked = await ask();
    assert.equal(asked.state, 'waiting');
    assert.equal(asked.url, `${stack.proxy.origin}/l/${asked.code}`);
    assert.equal(asked.qr.svg, `${asked.url}/qr.svg`);
    assert.match(asked.reference, /^CTR-[A-Z2-9]{8}$/);

    // An ordinary link, marked as a counter payment: single-use, its amount, expiring in 15 minutes.
    const link = (await stack.operator(`/api/operator/links/${asked.code}`)).body;
    assert.deepEqual(
      [link.kind, link.amount, link.currencyCode, link.title, link.maxUses, link.reference],
      ['counter', '12.50', 'EUR', 'Table 4', 1, asked.reference],
    );
    assert.deepEqual(link.createdBy, { kind: 'operator', id: clerk.operatorId });
    const expires = Date.parse(link.expiresAt as string) - before;
    assert.ok(expires >= 15 * 60_000 && expires < 16 * 60_000, `expires in ${expires} ms`);
    assert.ok((await countersListed()).includes(asked.code), 'listed with kind=counter');
    const shared = (await stack.operator('/api/operator/links?kind=link&limit=200')).body.links as Json[];
    assert.ok(!shared.some((each) => each.code === asked.code), 'not among the links to share');

    const stream = follow(asked.code);
    assert.deepEqual(await said(stream, 1), ['waiting']);
    const checkoutId = await open(asked.code);
    assert.deepEqual(await said(stream, 2), ['waiting', 'opened']);
    // The customer's checkout may be paid only until the counter payment expires (to the second), not
    // for a link's 30 minutes.
    const checkout = (await stack.browser(`/api/checkouts/${checkoutId}`)).body;
    const after = Date.parse(checkout.expiresAt as string) - Date.parse(link.expiresAt as string);
    assert.ok(after < 60_000, `the checkout outlives the counter payment by ${after} ms`);
    const payment = await stack.pay(checkoutId);
    assert.equal(payment.status, 201, payment.text);
    const transactionId = payment.body.transactionId as string;
    assert.deepEqual(await said(stream, 3), ['waiting', 'opened', 'authorising']);
    await stack.control(`/payments/${transactionId}/outcome`, { status: 'COMPLETED' });
    await stream.waitForClose();
    assert.deepEqual(states(stream), ['waiting', 'opened', 'authorising', 'paid'], 'each state once, in order');
    assert.equal(stream.data().at(-1)!.transactionId, transactionId);

    // A normal payment: counted on its link, found by its reference, the use given to nobody else.
    await eventually(
      async () => (await stack.operator(`/api/operator/links/${asked.code}`)).body.payments.count === 1 || undefined,
      'the link’s payment counted',
    );
    const found = (await stack.operator(`/api/payments?reference=${asked.reference}`)).body.payments as Json[];
    assert.deepEqual(
      found.map((each) => [each.transactionId, each.status]),
      [[transactionId, 'COMPLETED']],
    );
    const again = await stack.browser(`/api/links/${asked.code}/checkout`, { body: {} });
    assert.equal(again.status, 422, 'single-use: a second customer is told it is used');
    assert.equal((await till(`/api/operator/counter/${asked.code}`)).body.state, 'paid');
    assert.equal((await till(`/api/operator/counter/${asked.code}/cancel`, { method: 'POST' })).status, 409);
    const audit = (await stack.operator(`/api/audit?targetId=${asked.code}&limit=10`)).body.records as Json[];
    assert.deepEqual(
      audit.map((record) => [record.action, record.actor.name]),
      [['counter.requested', 'Till Clerk']],
    );
  });

  it('a failed payment shows failed (the customer may try again); cancelled, nobody can start paying it', async () => {
    const asked = await ask({ amount: '3' });
    const stream = follow(asked.code);
    await said(stream, 1);
    const payment = await stack.pay(await open(asked.code));
    await said(stream, 3);
    await stack.control(`/payments/${payment.body.transactionId}/outcome`, { status: 'FAILED' });
    assert.deepEqual(await said(stream, 4), ['waiting', 'opened', 'authorising', 'failed']);
    assert.equal(stream.closed, false, 'failed is not the end: the customer may try again on their phone');

    const cancelled = await till(`/api/operator/counter/${asked.code}/cancel`, { method: 'POST' });
    assert.equal(cancelled.status, 200, cancelled.text);
    assert.equal(cancelled.body.state, 'cancelled');
    await stream.waitForClose();
    assert.deepEqual(states(stream), ['waiting', 'opened', 'authorising', 'failed', 'cancelled']);
    assert.equal((await till(`/api/operator/counter/${asked.code}/cancel`, { method: 'POST' })).status, 409);

    // Cancelled before anyone opened it: the customer's phone is told it has ended.
    const unopened = await ask();
    const early = follow(unopened.code);
    await said(early, 1);
    await till(`/api/operator/counter/${unopened.code}/cancel`, { method: 'POST' });
    await early.waitForClose();
    assert.deepEqual(states(early), ['waiting', 'cancelled']);
    const late = await stack.browser(`/api/links/${unopened.code}/checkout`, { body: {} });
    assert.equal(late.status, 410);
    const audit = (await stack.operator(`/api/audit?targetId=${unopened.code}&limit=10`)).body.records as Json[];
    assert.deepEqual(audit.map((record) => [record.action, record.actor.name]).reverse(), [
      ['counter.requested', 'Till Clerk'],
      ['counter.cancelled', 'Till Clerk'],
    ]);
  });

  it('left unpaid for its 15 minutes: expired, its stream says so and ends, and the customer’s phone is told it has ended', async () => {
    // Asked 15 minutes and a second ago, through the proxy's own counter (its clock cannot be turned).
    const { links, checkouts, config } = stack.proxy.services;
    const counter = new Counter({ links, checkouts, terms: config.counterAmount });
    const { code } = await counter.ask(
      { amount: '4.20', note: 'Table 9' },
      clerk.operatorId,
      Date.now() - COUNTER_TTL_MS - 1_000,
    );
    assert.equal((await till(`/api/operator/counter/${code}`)).body.state, 'expired');
    const stream = follow(code);
    await stream.waitForClose();
    assert.deepEqual(states(stream), ['expired'], 'a final state: the stream ends');
    const late = await stack.browser(`/api/links/${code}/checkout`, { body: {} });
    assert.equal(late.status, 410, late.text);
    assert.equal((await till(`/api/operator/counter/${code}`)).body.state, 'expired', 'nobody opened it');
  });

  it('takes amounts within KASSA_COUNTER only, a clerk and up only, counter links only; nothing made when refused', async () => {
    const before = await countersListed();
    for (const amount of ['0.49', '100.01', '-1', '1.234', 'ten']) {
      const refused = await till('/api/operator/counter', { body: { amount, note: 'x' } });
      assert.equal(refused.status, 400, `${amount}: ${refused.text}`);
    }
    const out = await till('/api/operator/counter', { body: { amount: '250', note: 'x' } });
    assert.deepEqual(out.body.details, {
      reason: 'amount-out-of-bounds',
      min: '0.50',
      max: '100',
      currencyCode: 'EUR',
    });
    assert.equal((await till('/api/operator/counter', { body: { amount: '5', note: '' } })).status, 400);
    const viewer = await stack.addOperator('viewer');
    const refused = await as(stack.proxy.origin, viewer)('/api/operator/counter', { body: { amount: '5', note: 'x' } });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.permission, 'counter:take');
    assert.deepEqual(await countersListed(), before, 'nothing was made');

    // A link to share is no counter payment.
    const shared = await stack.merchant('/api/links', {
      body: { title: 'Lesson', amount: '5', currencyCode: 'EUR', reference: 'L-{n}' },
    });
    assert.equal((await till(`/api/operator/counter/${shared.body.code}`)).status, 404);
    assert.equal((await till(`/api/operator/counter/${shared.body.code}/cancel`, { method: 'POST' })).status, 404);

    /** The clerk asks a proxy of these settings, at `origin`: its status and error. */
    const askOf = async (settings: Partial<typeof stack.config>, origin: string) => {
      const { app } = createApp({ ...stack.proxy.services, config: { ...stack.config, ...settings } });
      const answer = await app.request(`${origin}/api/operator/counter`, {
        method: 'POST',
        headers: { ...clerk.headers, 'Content-Type': 'application/json' },
        body: JSON.stringify({ amount: '5', note: 'x' }),
      });
      return { status: answer.status, error: ((await answer.json()) as { error: string }).error };
    };
    // Counter mode off: refused, saying which setting turns it on.
    const off = await askOf({ counterAmount: null }, 'http://127.0.0.1');
    assert.equal(off.status, 403);
    assert.match(off.error, /KASSA_COUNTER/);
    // No address for the QR code to hold (no KASSA_PUBLIC_URL, a request not on loopback): said, and nothing made.
    const nowhere = await askOf({ publicUrl: null }, 'http://kassa.internal');
    assert.equal(nowhere.status, 500);
    assert.match(nowhere.error, /KASSA_PUBLIC_URL/);
    assert.deepEqual(await countersListed(), before, 'nothing was made');
  });

  it('the counter page: the sign-in first, then the amount field for a role with counter:take, in words otherwise', async () => {
    const origin = stack.proxy.origin.replace('127.0.0.1', 'localhost');
    const signin = await http(`${origin}/operator/counter`);
    assert.equal(signin.status, 200);
    assert.match(signin.text, /data-view="signin"/);
    assert.match(signin.text, /data-action="signin"/);
    // The company's sign-in (SSO) comes back to the counter too; other addresses stay refused.
    assert.equal(safeReturnPath('/operator/counter'), '/operator/counter');
    assert.equal(safeReturnPath('/operator/counter/../x'), '/operator');

    const authenticator = new SoftAuthenticator(origin);
    const support = await operatorWithPasskey(stack.proxy, authenticator, 'support');
    const page = await asBrowser(support.session)('/operator/counter?lang=de');
    assert.equal(page.status, 200);
    assert.match(page.text, /data-view="counter"/);
    assert.match(page.text, /<label for="counter-amount">Betrag \(EUR\)<\/label>/);
    assert.match(page.text, /Von 0,50\s€ bis 100,00\s€\./);
    const account = await asBrowser(support.session)('/operator?lang=en');
    assert.match(account.text, /href="\/operator\/counter"/, 'the operators’ page leads to the counter');

    // The page's own writes: its session, its CSRF token, its Origin.
    const made = await asBrowser(support.session)('/api/operator/counter', { body: { amount: '7', note: 'Bar' } });
    assert.equal(made.status, 201, made.text);
    const stream = openSse(`${origin}/api/operator/counter/${made.body.code}/events`, {
      Cookie: support.session.cookie,
    });
    await stream.waitForEvents(1);
    assert.equal(stream.data()[0]!.state, 'waiting');
    // Signed out (on this tablet or anywhere else), the counter hears it on its stream.
    assert.equal((await asBrowser(support.session)('/operator/signout', { method: 'POST' })).status, 204);
    await stream.waitForClose();
    assert.equal(stream.events.at(-1)?.event, 'unauthorized');

    const viewer = await operatorWithPasskey(stack.proxy, new SoftAuthenticator(origin), 'viewer');
    const refused = await asBrowser(viewer.session)('/operator/counter?lang=en');
    assert.equal(refused.status, 403);
    assert.match(refused.text, /Your role cannot take payments at the counter/);
    assert.doesNotMatch(refused.text, /counter-amount/);
  });
});
