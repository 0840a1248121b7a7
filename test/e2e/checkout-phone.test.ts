/**
 * Paying with the phone: a desktop browser context shows the QR code of the hand-off link, a phone
 * context (Playwright's device emulation) opens what the QR code says, pays at the bank, and the
 * desktop shows the result by itself, live, with no request of its own after the QR code; the phone
 * ends on the proxy's page saying how it went, in its language.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { devices, type Browser, type BrowserContext, type Page } from 'playwright';
import { launchChromium, partText, waitForPhase, watchProblems } from '../support/browser.ts';
import { startShopStack, type ShopStack } from '../support/shop-stack.ts';
import { answerAtBank, type BankAnswer } from './support/bank.ts';
import { scanQr } from './support/phone.ts';
import { PATIENCE_MS } from '../support/patience.ts';

describe('e2e: paying with the phone', () => {
  let env: ShopStack;
  let browser: Browser;
  const contexts: BrowserContext[] = [];

  before(async () => {
    [env, browser] = await Promise.all([startShopStack({ settlementMs: 0 }), launchChromium()]);
  });
  after(async () => {
    await Promise.all(contexts.map((context) => context.close()));
    await browser.close();
    await env.stop();
  });

  async function context(options: Parameters<Browser['newContext']>[0] = {}) {
    const created = await browser.newContext(options);
    contexts.push(created);
    return created;
  }

  /** The desktop: the shop's order page, "Pay with your phone", and the QR code. */
  async function desktopWithQr() {
    const desktop = await context();
    const page = await desktop.newPage();
    const problems = watchProblems(page);
    await page.addInitScript(() =>
      document.addEventListener(
        'kassa-completed',
        () => ((window as unknown as { doneAt: number }).doneAt = Date.now()),
      ),
    );
    await page.goto(env.shop.origin);
    await waitForPhase(page, 'ready');
    await page.getByRole('button', { name: 'Pay with your phone' }).click();
    await waitForPhase(page, 'phone');
    await page.getByRole('img', { name: 'QR code of the payment link for your phone' }).waitFor();
    // What the element asks of the proxy; the shop's own page polls its server for the confirmation.
    const requests: string[] = [];
    page.on('request', (request) => {
      if (request.url().startsWith(env.stack.proxy.origin)) requests.push(request.url());
    });
    const url = await scanQr(page, desktop);
    assert.equal(url, await partText(page, 'handoff-url'), 'the QR code says what the link says');
    assert.match(url, new RegExp(`^${env.stack.proxy.origin}/p/[A-Za-z0-9_-]{20,40}$`));
    return { page, problems, requests, url };
  }

  /** The phone opens the link, answers at the bank, and is sent back to the proxy's return address. */
  async function payOnPhone(url: string, answer: BankAnswer, bank = 'XYZ Bank', locale = 'en-GB') {
    const phone = await context({ ...devices['Pixel 7'], locale });
    const page = await phone.newPage();
    const problems = watchProblems(page);
    const loaded: string[] = [];
    page.on('request', (request) => loaded.push(request.url()));
    await page.goto(url);
    const answeredAt = Date.now();
    await answerAtBank(page, answer, bank);
    return { page, problems, loaded, answeredAt };
  }

  /** Where the phone ends: the proxy's page, in the phone's language, once the payment is known to have ended. */
  async function phoneOutcome(page: Page, outcome: string) {
    await page.waitForURL(new RegExp(`^${env.stack.proxy.origin}/r/`));
    await page.locator(`main[data-outcome="${outcome}"]`).waitFor({ timeout: PATIENCE_MS });
    return ((await page.locator('main').textContent()) ?? '').replace(/\s+/g, ' ').trim();
  }

  // How soon it shows is bench/phone.ts's figure; here, what shows, after what, and from where.
  it('the phone authorises; the desktop shows the receipt by itself, with no request of its own', async () => {
    const desktop = await desktopWithQr();
    const phone = await payOnPhone(desktop.url, 'Authorise payment');
    await waitForPhase(desktop.page, 'completed');
    const doneAt = await desktop.page.evaluate(() => (window as unknown as { doneAt: number }).doneAt);
    assert.ok(doneAt >= phone.answeredAt, 'the desktop completed after the phone answered, not before');
    assert.equal(await partText(desktop.page, 'status'), 'Payment received. Thank you!');
    // The receipt shows with the result: its chunk came before the QR code.
    assert.match(
      await partText(desktop.page, 'receipt'),
      /Amount €42\.50 Reference .+ Paid on .+ Bank XYZ Bank Payment reference to quote E2E[0-9A-F]{24}/,
    );
    assert.deepEqual(desktop.requests, [], 'the desktop followed the payment on the stream it already had');

    // The phone lands on the proxy's page, not the shop's: done, and back to the computer.
    assert.equal(
      await phoneOutcome(phone.page, 'completed'),
      'Payment done Thank you. You can go back to your computer.',
    );
    assert.ok(!phone.loaded.some((url) => url.startsWith(env.shop.origin)), 'the phone never sees the shop');
    assert.ok(!phone.loaded.some((url) => /phone-handoff/.test(url)), 'a phone never loads the QR code chunk');
    // The code is spent: opening it again tells the phone so, and never shows the bank.
    await phone.page.goto(desktop.url);
    assert.equal(await phone.page.locator('main').getAttribute('data-outcome'), 'completed');
    assert.equal(await phone.page.locator('h1').textContent(), 'Payment done');
    assert.deepEqual([...desktop.problems, ...phone.problems], []);
  });

  for (const [answer, bank, reason, locale, phoneWords] of [
    [
      'Cancel',
      'XYZ Bank',
      'You cancelled the payment at your bank.',
      'de-DE',
      'Die Zahlung ist nicht erfolgt Sie haben sie bei Ihrer Bank abgebrochen. Versuchen Sie es am Computer erneut.',
    ],
    [
      'Authorise payment',
      'Sandbox bank that rejects',
      'Your bank declined the payment.',
      'en-GB',
      'The payment did not go through Your bank declined it. Go back to your computer to try again.',
    ],
  ] as const) {
    it(`${answer === 'Cancel' ? 'cancelled' : 'rejected'} on the phone: both show the reason`, async () => {
      const desktop = await desktopWithQr();
      const phone = await payOnPhone(desktop.url, answer, bank, locale);
      const outcome = answer === 'Cancel' ? 'cancelled' : 'rejected';
      const [, phoneText] = await Promise.all([
        waitForPhase(desktop.page, 'failed'),
        phoneOutcome(phone.page, outcome),
      ]);
      assert.match(await partText(desktop.page, 'status'), new RegExp(reason));
      assert.equal(phoneText, phoneWords);
      await phone.page.goto(desktop.url);
      assert.equal(
        await phone.page.locator('main').getAttribute('data-outcome'),
        answer === 'Cancel' ? 'cancelled' : 'rejected',
      );
      assert.deepEqual([...desktop.problems, ...phone.problems], []);
    });
  }

  it('a reload while the QR code shows shows it again, for the same payment', async () => {
    const desktop = await desktopWithQr();
    const before = (await env.payments()).length;
    await desktop.page.reload();
    await waitForPhase(desktop.page, 'phone');
    assert.equal(await partText(desktop.page, 'handoff-url'), desktop.url);
    assert.equal(await desktop.page.getByRole('button', { name: 'Pay in this browser' }).count(), 1);
    assert.equal((await env.payments()).length, before, 'no second payment');
    const phone = await payOnPhone(desktop.url, 'Authorise payment');
    await waitForPhase(desktop.page, 'completed');
    await phoneOutcome(phone.page, 'completed');
    assert.deepEqual(desktop.problems, []);
  });

  it('"Pay in this browser" after the QR code: the same payment, the bank in the page’s language, and back to the shop', async () => {
    const desktop = await desktopWithQr();
    const before = (await env.payments()).length;
    await desktop.page.getByRole('button', { name: 'Pay in this browser' }).click();
    await desktop.page.waitForURL(/\/pay\/flow\//);
    assert.equal((await env.payments()).length, before, 'no second payment');
    assert.equal(new URL(desktop.page.url()).searchParams.get('lang'), 'en', 'the element passes its language on');
    // And the phone's link still leads to that same payment's bank page.
    const phone = await (await context({ ...devices['Pixel 7'] })).newPage();
    await phone.goto(desktop.url);
    assert.equal(new URL(phone.url()).pathname, new URL(desktop.page.url()).pathname);
    // Paid in this browser, the customer is back on the shop's page (through the proxy's return address), as ever.
    await desktop.page.getByLabel('XYZ Bank').check();
    await desktop.page.getByRole('button', { name: 'Authorise payment' }).click();
    await desktop.page.waitForURL((url) => url.origin === env.shop.origin);
    await waitForPhase(desktop.page, 'completed');
    assert.match(await partText(desktop.page, 'receipt'), /Bank XYZ Bank Payment reference to quote E2E[0-9A-F]{24}/);
  });

  it('a code the proxy did not issue shows a clear page in the phone’s language, never the bank', async () => {
    const phone = await (await context({ ...devices['Pixel 7'], locale: 'de-DE' })).newPage();
    const response = await phone.goto(`${env.stack.proxy.origin}/p/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`);
    assert.equal(response?.status(), 404);
    assert.equal(await phone.locator('h1').textContent(), 'Dieser Link ist ungültig');
  });
});
