/**
 * A customer's journeys through the demo shop, the real proxy and the emulator's bank, in Chromium,
 * on a page with a strict Content-Security-Policy (no inline script or style, Trusted Types).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright';
import { answerAtBank, holdAtBank } from './support/bank.ts';
import { launchChromium, partText, waitForPhase, watchProblems } from '../support/browser.ts';
import { startShopStack, type ShopStack } from '../support/shop-stack.ts';
import { PATIENCE_MS } from '../support/patience.ts';

describe('e2e: paying through the shop', () => {
  let env: ShopStack;
  let browser: Browser;
  const pages: Page[] = [];

  before(async () => {
    // "Waiting for the bank" is held at the bank (holdAtBank) wherever a journey looks at it.
    [env, browser] = await Promise.all([startShopStack(), launchChromium()]);
  });
  after(async () => {
    await browser.close();
    await env.stop();
  });

  /** A customer's fresh tab on the shop's order page, its problems collected. */
  async function customer(path = '/') {
    const context = await browser.newContext();
    const page = await context.newPage();
    const problems = watchProblems(page);
    pages.push(page);
    await page.goto(`${env.shop.origin}${path}`);
    await waitForPhase(page, 'ready');
    return { page, problems, context };
  }

  /** The status token of the return address, seen as the browser asks the shop for it. */
  const returnUrlOf = (page: Page) =>
    page.waitForRequest((request) => request.url().includes('kassa_status=')).then((request) => request.url());

  // How soon the result follows the webhook is npm run bench's figure (webhook -> event); here, the order.
  it('pay and authorise: waiting for the bank until it executes the payment, then completed', async () => {
    const { page, problems } = await customer();
    assert.equal(await partText(page, 'amount'), '€42.50');
    assert.equal(await partText(page, 'badge'), 'Sandbox');
    // On every page of this tab, the return page included: when did the page hear of completion?
    await page.addInitScript(() =>
      document.addEventListener(
        'kassa-completed',
        () => ((window as unknown as { completedAt: number }).completedAt = Date.now()),
      ),
    );
    await page.getByRole('button', { name: 'Pay by bank' }).click();
    const returned = returnUrlOf(page);
    const bank = await holdAtBank(page, env.stack);
    await answerAtBank(page, 'Authorise payment');
    await returned;
    await waitForPhase(page, 'waiting');
    assert.equal(await partText(page, 'status'), 'Waiting for your bank to confirm…');
    assert.doesNotMatch(page.url(), /kassa_status/, 'the status token is taken out of the address');
    const heldUntil = Date.now();
    await bank.release();
    await waitForPhase(page, 'completed');
    assert.equal(await partText(page, 'status'), 'Payment received. Thank you!');

    const [delivery] = (await env.stack.control(`/webhooks?transactionId=${bank.transactionId}`)).body as Array<{
      startedAt: string;
      status: number;
    }>;
    assert.equal(delivery?.status, 200, 'the bank told the proxy');
    const completedAt = await page.evaluate(() => (window as unknown as { completedAt: number }).completedAt);
    assert.ok(heldUntil <= Date.parse(delivery.startedAt), 'the bank executed the payment once released');
    assert.ok(Date.parse(delivery.startedAt) <= completedAt, 'the page completed after the bank executed it');
    assert.deepEqual(problems, []);
  });

  it('cancel at the bank: failed, with the reason, and a new attempt takes the customer to the bank again', async () => {
    const { page, problems } = await customer();
    await page.getByRole('button', { name: 'Pay by bank' }).click();
    const firstFlow = await page.waitForURL(/\/pay\/flow\//).then(() => page.url());
    await answerAtBank(page, 'Cancel');
    await waitForPhase(page, 'failed');
    assert.equal(
      await partText(page, 'status'),
      'The payment did not go through. You cancelled the payment at your bank.',
    );
    await page.getByRole('button', { name: 'Try again' }).click();
    await page.waitForURL(/\/pay\/flow\//);
    assert.notEqual(page.url(), firstFlow, 'a new payment');
    await answerAtBank(page, 'Authorise payment', 'Sandbox bank that rejects');
    await waitForPhase(page, 'failed');
    assert.equal(await partText(page, 'status'), 'The payment did not go through. Your bank declined the payment.');
    assert.deepEqual(problems, []);
  });

  it('reload while waiting resumes, and a new tab with the return address shows the same payment', async () => {
    const { page, problems, context } = await customer();
    const checkoutId = await page.locator('kassa-checkout').getAttribute('checkout');
    await page.getByRole('button', { name: 'Pay by bank' }).click();
    const returned = returnUrlOf(page);
    const bank = await holdAtBank(page, env.stack);
    await answerAtBank(page, 'Authorise payment');
    const returnUrl = await returned;
    await waitForPhase(page, 'waiting');
    await page.reload();
    assert.doesNotMatch(page.url(), /kassa_status/);
    await waitForPhase(page, 'waiting');
    await bank.release();
    await waitForPhase(page, 'completed');

    // The bank's app opened the return address in another browser tab: no sessionStorage there.
    const other = await (await browser.newContext()).newPage();
    await other.goto(returnUrl);
    await waitForPhase(other, 'completed');
    assert.equal(await partText(other, 'amount'), '€42.50');
    await other.context().close();

    const payments = (await env.payments()).filter((payment) => payment.checkoutId === checkoutId);
    assert.equal(payments.length, 1, 'one payment for the checkout');
    assert.deepEqual(problems, []);
    await context.close();
  });

  it('double clicks and a reload on the way to the bank make one payment', async () => {
    const { page, problems } = await customer();
    const checkoutId = await page.locator('kassa-checkout').getAttribute('checkout');
    await page.getByRole('button', { name: 'Pay by bank' }).dblclick();
    await page.waitForURL(/\/pay\/flow\//);
    await page.goBack();
    await waitForPhase(page, 'authorising');
    await page.reload();
    await waitForPhase(page, 'authorising');
    await page.getByRole('button', { name: 'Continue to your bank' }).click();
    await page.waitForURL(/\/pay\/flow\//);
    assert.equal((await env.payments()).filter((payment) => payment.checkoutId === checkoutId).length, 1);
    assert.deepEqual(problems, []);
  });

  it('popup mode: the bank opens in a popup, which closes when the bank has answered', async () => {
    const { page, problems } = await customer();
    await page.locator('#mode').selectOption('popup');
    const popupOpened = page.waitForEvent('popup');
    await page.getByRole('button', { name: 'Pay by bank' }).click();
    const popup = await popupOpened;
    await waitForPhase(page, 'authorising');
    await answerAtBank(popup, 'Authorise payment');
    await waitForPhase(page, 'completed');
    if (!popup.isClosed()) await popup.waitForEvent('close', { timeout: PATIENCE_MS });
    assert.deepEqual(problems, []);
  });

  it('another language: its messages load as a chunk from the proxy', async () => {
    const { page, problems } = await customer();
    const chunk = page.waitForResponse((response) => /\/kassa\/de-[\w-]+\.js$/.test(response.url()));
    await page.locator('#locale').selectOption('de');
    const response = await chunk;
    assert.equal(response.status(), 200);
    assert.match(response.headers()['cache-control'] ?? '', /immutable/);
    await page.getByRole('button', { name: 'Per Bank bezahlen' }).waitFor();
    assert.equal(await partText(page, 'amount'), '42,50 €');
    assert.deepEqual(problems, []);
  });
});
