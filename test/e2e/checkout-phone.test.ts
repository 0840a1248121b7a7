/**
 * Paying with the phone: a desktop browser context shows the QR code of the hand-off link, a phone
 * context (Playwright's device emulation) opens what the QR code says, pays at the bank, and the
 * desktop shows the result by itself, live, with no request of its own after the QR code.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { devices, type Browser, type BrowserContext } from 'playwright';
import { launchChromium, partText, waitForPhase, watchProblems } from '../support/browser.ts';
import { startShopStack, type ShopStack } from '../support/shop-stack.ts';
import { scanQr } from './support/phone.ts';

type Answer = 'Authorise payment' | 'Cancel';

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

  /** The phone opens the link, answers at the bank, and lands on the shop's return page. */
  async function payOnPhone(url: string, answer: Answer, bank = 'XYZ Bank') {
    const phone = await context({ ...devices['Pixel 7'] });
    const page = await phone.newPage();
    const problems = watchProblems(page);
    const loaded: string[] = [];
    page.on('request', (request) => loaded.push(request.url()));
    await page.goto(url);
    await page.waitForURL(/\/pay\/flow\//);
    await page.getByLabel(bank).check();
    const answeredAt = Date.now();
    await page.getByRole('button', { name: answer }).click();
    return { page, problems, loaded, answeredAt };
  }

  it('the phone authorises; the desktop shows the receipt within a second, with no request of its own', async () => {
    const desktop = await desktopWithQr();
    const phone = await payOnPhone(desktop.url, 'Authorise payment');
    await waitForPhase(desktop.page, 'completed');
    const doneAt = await desktop.page.evaluate(() => (window as unknown as { doneAt: number }).doneAt);
    assert.ok(
      doneAt - phone.answeredAt < 1_000,
      `desktop showed it ${doneAt - phone.answeredAt} ms after authorisation`,
    );
    assert.equal(await partText(desktop.page, 'status'), 'Payment received. Thank you!');
    // The receipt shows with the result: its chunk came before the QR code.
    assert.match(
      await partText(desktop.page, 'receipt'),
      /Amount €42\.50 Reference .+ Paid on .+ Bank bank_xyz Payment reference to quote NP[0-9A-F]{20}/,
    );
    assert.deepEqual(desktop.requests, [], 'the desktop followed the payment on the stream it already had');

    await waitForPhase(phone.page, 'completed');
    assert.ok(!phone.loaded.some((url) => /phone-handoff/.test(url)), 'a phone never loads the QR code chunk');
    // The code is spent: opening it again tells the phone so, and never shows the bank.
    await phone.page.goto(desktop.url);
    assert.equal(await phone.page.locator('main').getAttribute('data-outcome'), 'completed');
    assert.equal(await phone.page.locator('h1').textContent(), 'Payment done');
    assert.deepEqual([...desktop.problems, ...phone.problems], []);
  });

  for (const [answer, bank, reason] of [
    ['Cancel', 'XYZ Bank', 'You cancelled the payment at your bank.'],
    ['Authorise payment', 'Sandbox bank that rejects', 'Your bank declined the payment.'],
  ] as const) {
    it(`${answer === 'Cancel' ? 'cancelled' : 'rejected'} on the phone: both show the reason`, async () => {
      const desktop = await desktopWithQr();
      const phone = await payOnPhone(desktop.url, answer, bank);
      await Promise.all([waitForPhase(desktop.page, 'failed'), waitForPhase(phone.page, 'failed')]);
      for (const page of [desktop.page, phone.page]) assert.match(await partText(page, 'status'), new RegExp(reason));
      await phone.page.goto(desktop.url);
      assert.equal(
        await phone.page.locator('main').getAttribute('data-outcome'),
        answer === 'Cancel' ? 'cancelled' : 'rejected',
      );
      assert.deepEqual([...desktop.problems, ...phone.problems], []);
    });
  }

  it('"Pay in this browser" after the QR code goes to the same payment', async () => {
    const desktop = await desktopWithQr();
    const before = (await env.payments()).length;
    await desktop.page.getByRole('button', { name: 'Pay in this browser' }).click();
    await desktop.page.waitForURL(/\/pay\/flow\//);
    assert.equal((await env.payments()).length, before, 'no second payment');
    // And the phone's link still leads to that same payment's bank page.
    const phone = await (await context({ ...devices['Pixel 7'] })).newPage();
    await phone.goto(desktop.url);
    assert.equal(new URL(phone.url()).pathname, new URL(desktop.page.url()).pathname);
  });

  it('a code the proxy did not issue shows a clear page in the phone’s language, never the bank', async () => {
    const phone = await (await context({ ...devices['Pixel 7'], locale: 'de-DE' })).newPage();
    const response = await phone.goto(`${env.stack.proxy.origin}/p/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`);
    assert.equal(response?.status(), 404);
    assert.equal(await phone.locator('h1').textContent(), 'Dieser Link ist ungültig');
  });
});
