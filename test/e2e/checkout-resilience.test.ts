/**
 * The checkout when things go wrong: Server-Sent Events blocked on the way, the proxy down, and a
 * customer who edits the amount in the page.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright';
import { answerAtBank, holdAtBank } from './support/bank.ts';
import { launchChromium, partText, waitForPhase, watchProblems } from '../support/browser.ts';
import { startShopStack, type ShopStack } from '../support/shop-stack.ts';
import { eventually } from '../support/stack.ts';

describe('e2e: when things go wrong', () => {
  let env: ShopStack;
  let browser: Browser;

  before(async () => {
    // "Waiting for the bank" is held at the bank (holdAtBank) wherever a test needs it to last.
    [env, browser] = await Promise.all([startShopStack(), launchChromium()]);
  });
  after(async () => {
    await browser.close();
    await env.stop();
  });

  async function customer(path = '/') {
    const page = await (await browser.newContext()).newPage();
    const problems = watchProblems(page);
    await page.goto(`${env.shop.origin}${path}`);
    await waitForPhase(page, 'ready');
    return { page, problems };
  }

  /** A poll as the browser timed it: when it was sent, when its answer had come in (epoch ms), and the answer. */
  interface Poll {
    sentAt: number;
    answeredAt: number;
    answer?: string;
  }

  /** Blocks the status stream, so the element must poll, and records each poll the page sends. */
  function blockStreamsAndRecordPolls(page: Page): Poll[] {
    void page.route('**/api/payments/status/*/events', (route) => route.abort('blockedbyclient'));
    const polls: Poll[] = [];
    // The browser's own timing of each request: Node's arrival time of the event lags under load.
    page.on('requestfinished', (request) => {
      if (!/\/api\/payments\/status\/[\w-]+$/.test(request.url())) return;
      const { startTime, responseEnd } = request.timing();
      const poll: Poll = { sentAt: startTime, answeredAt: startTime + responseEnd };
      polls.push(poll);
      void request
        .response()
        .then((response) => response?.text())
        .then((answer) => void (poll.answer = answer));
    });
    return polls;
  }

  const polled = (polls: Poll[], count: number) =>
    eventually(() => (polls.length >= count ? polls : undefined), `${count} polls`);

  it('SSE blocked: polling takes over, never faster than every 5 s, and shows the result', async () => {
    const { page } = await customer();
    const polls = blockStreamsAndRecordPolls(page);
    await page.getByRole('button', { name: 'Pay by bank' }).click();
    const bank = await holdAtBank(page, env.stack);
    await answerAtBank(page, 'Authorise payment');
    await waitForPhase(page, 'waiting');
    // Two polls find the payment still waiting; then the bank executes it, and a poll brings the result.
    await polled(polls, 2);
    const whileWaiting = polls.length;
    await bank.release();
    await waitForPhase(page, 'completed');
    assert.ok(polls.length > whileWaiting, 'the result came with a poll');
    const gaps = polls.slice(1).map((poll, index) => poll.sentAt - polls[index]!.sentAt);
    assert.ok(
      gaps.every((gap) => gap >= 4_950),
      `gaps between polls: ${gaps.join(', ')} ms`,
    );
  });

  it('SSE blocked and nothing changing: polling slows down', async () => {
    const { page } = await customer();
    const polls = blockStreamsAndRecordPolls(page);
    // At the bank, then back with the back button: the payment waits for the customer's answer.
    await page.getByRole('button', { name: 'Pay by bank' }).click();
    await page.waitForURL(/\/pay\/flow\//);
    await page.goBack();
    await waitForPhase(page, 'authorising');
    // How long the element waited after each answer before polling again: 5 s after news, half as
    // long again after an answer that is the one before it. The proxy may still learn of the visit to
    // the bank after the first polls (a webhook late on a loaded machine), so the answers decide which
    // wait is due. Timers are never early, so these are lower bounds on any machine, less a margin: the
    // browser times an answer's end and the next request's start on different clocks (55 ms apart seen).
    const waits = () =>
      polls.slice(0, -1).map((poll, index) => ({
        wait: polls[index + 1]!.sentAt - poll.answeredAt,
        repeat: index > 0 && poll.answer !== undefined && poll.answer === polls[index - 1]!.answer,
      }));
    // Until an answer that is not news has been followed by the next poll.
    const seen = await eventually(
      () => (waits().some(({ repeat }) => repeat) ? waits() : undefined),
      'an unchanged answer, then the next poll',
    );
    const firstRepeat = seen.findIndex(({ repeat }) => repeat);
    assert.ok(
      seen.every(({ wait }, index) => wait >= (index === firstRepeat ? 7_250 : 4_750)),
      `waits after each answer: ${seen.map(({ wait, repeat }) => `${wait} (${repeat ? 'same' : 'news'})`).join(', ')} ms`,
    );
  });

  it('proxy down: a clear error, and trying again once it is back goes on to the bank', async () => {
    const { page } = await customer();
    const port = String(env.stack.proxy.port);
    await env.stack.restart({ PORT: port }, async () => {
      await page.getByRole('button', { name: 'Pay by bank' }).click();
      await waitForPhase(page, 'error');
      assert.equal(
        await partText(page, 'status'),
        "We can't reach the payment service. Check your connection and try again.",
      );
    });
    await page.getByRole('button', { name: 'Try again' }).click();
    await page.waitForURL(/\/pay\/flow\//);
  });

  it('the chunk that starts payments cannot be fetched: said as the proxy out of reach, and Try again goes on once it can', async () => {
    const page = await (await browser.newContext()).newPage();
    // Blocked from the first load: fetched ahead once the checkout is ready, it would otherwise be there.
    let blocked = true;
    await page.route(/\/payment-start-[\w-]+\.js$/, (route) =>
      blocked ? route.abort('connectionrefused') : route.continue(),
    );
    await page.goto(`${env.shop.origin}/`);
    await waitForPhase(page, 'ready');
    await page.getByRole('button', { name: 'Pay by bank' }).click();
    await waitForPhase(page, 'error');
    assert.equal(
      await partText(page, 'status'),
      "We can't reach the payment service. Check your connection and try again.",
    );
    blocked = false;
    await page.getByRole('button', { name: 'Try again' }).click();
    await page.waitForURL(/\/pay\/flow\//);
  });

  it('the proxy restarts while the customer waits: the status still arrives', async () => {
    const { page } = await customer();
    await page.getByRole('button', { name: 'Pay by bank' }).click();
    const bank = await holdAtBank(page, env.stack);
    await answerAtBank(page, 'Authorise payment');
    await waitForPhase(page, 'waiting');
    // The bank executes the payment while the proxy is down: its webhook finds no one there.
    await env.stack.restart({ PORT: String(env.stack.proxy.port) }, () => bank.release());
    await waitForPhase(page, 'completed');
  });

  it('a tampered amount: the checkout’s amount is paid, whatever the page says', async () => {
    const { page, problems } = await customer();
    const checkoutId = (await page.locator('kassa-checkout').getAttribute('checkout'))!;
    // In the browser's developer tools: a cheaper amount on the element...
    await page.locator('kassa-checkout').evaluate((element) => element.setAttribute('amount', '0.01'));
    await waitForPhase(page, 'ready');
    assert.equal(await partText(page, 'amount'), '€42.50');
    // ...and a hand-made request with both a checkout and an amount.
    const forged = await page.evaluate(
      async ([proxy, checkout]) =>
        (
          await fetch(`${proxy}/api/payments`, {
            method: 'POST',
            headers: { 'Content-Type': 'application/json', 'Idempotency-Key': 'forged-request-1' },
            body: JSON.stringify({ checkoutId: checkout, amount: '0.01' }),
          })
        ).status,
      [env.stack.proxy.origin, checkoutId] as const,
    );
    assert.equal(forged, 400);
    await page.getByRole('button', { name: 'Pay by bank' }).click();
    await page.waitForURL(/\/pay\/flow\//);
    const payments = (await env.payments()).filter((payment) => payment.checkoutId === checkoutId);
    assert.deepEqual(
      payments.map((payment) => payment.amount),
      ['42.50'],
    );
    assert.deepEqual(problems, []);
  });

  it('a tampered open amount beyond what the shop allows is refused', async () => {
    const { page } = await customer('/donate');
    await page.locator('kassa-checkout').evaluate((element) => element.setAttribute('amount', '100000'));
    await waitForPhase(page, 'ready');
    assert.equal(await partText(page, 'amount'), '€100,000.00');
    await page.getByRole('button', { name: 'Pay by bank' }).click();
    await waitForPhase(page, 'error');
    assert.equal(await partText(page, 'status'), 'The payment could not be started.');
    assert.equal((await env.payments()).filter((payment) => payment.amount === '100000').length, 0);
  });
});
