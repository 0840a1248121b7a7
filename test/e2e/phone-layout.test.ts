/**
 * The checkout's pages on a phone (390×844, touch) and a laptop (1280×800), as a customer sees them on
 * the demo shop: the receipt's labels above their values in a card as narrow as a phone's or the shop's
 * column, so the end-to-end reference and the date each keep to a line; the phone's ready card with no room kept for
 * the laptop's "Pay with your phone"; and the phone's last page after paying for a computer ("Payment
 * done") with a margin to the screen's edges, as the bank's page. Screenshots: test-artifacts/phone-layout/.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright';
import { launchChromium, waitForPhase, watchProblems } from '../support/browser.ts';
import { keepScreenshot, SCREENS } from '../support/screenshots.ts';
import { startShopStack, type ShopStack } from '../support/shop-stack.ts';
import { answerAtBank } from './support/bank.ts';
import { PATIENCE_MS } from '../support/patience.ts';

const SUITE = 'phone-layout';

/** The margins between a page's `main` and the screen's left and right edges. */
const margins = (page: Page) =>
  page
    .locator('main')
    .evaluate((main) => [main.getBoundingClientRect().left, innerWidth - main.getBoundingClientRect().right]);

describe('e2e: the checkout on a phone', () => {
  let env: ShopStack;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  const problems: string[][] = [];

  before(async () => {
    [env, browser] = await Promise.all([startShopStack({ settlementMs: 0 }), launchChromium()]);
  });
  after(async () => {
    for (const seen of problems) assert.deepEqual(seen, []);
    await Promise.all(contexts.map((context) => context.close()));
    await browser.close();
    await env.stop();
  });

  async function open(screen: keyof typeof SCREENS, url = env.shop.origin): Promise<Page> {
    const context = await browser.newContext(SCREENS[screen]);
    contexts.push(context);
    const page = await context.newPage();
    problems.push(watchProblems(page));
    await page.goto(url);
    return page;
  }

  /** Each receipt row: where its label and its value are, and how many lines the value takes. */
  const receiptRows = (page: Page) =>
    page.locator('kassa-checkout').evaluate((element) =>
      [...element.shadowRoot!.querySelectorAll('.receipt dt')].map((label) => {
        const value = label.nextElementSibling!;
        const [at, of] = [label.getBoundingClientRect(), value.getBoundingClientRect()];
        const text = value.querySelector('code') ?? value;
        const lineHeight = parseFloat(getComputedStyle(text).lineHeight);
        return {
          label: label.textContent.trim(),
          above: Math.abs(at.left - of.left) < 1 && of.top >= at.bottom - 1,
          lines: Math.round(text.getBoundingClientRect().height / lineHeight),
        };
      }),
    );

  for (const screen of ['phone', 'desktop'] as const)
    it(`the receipt on a ${screen}: labels above their values, the reference to quote and the date on one line each`, async () => {
      const page = await open(screen);
      await waitForPhase(page, 'ready');
      if (screen === 'phone') {
        // Only what a phone shows: the amount, the reference, the status line and "Pay by bank".
        const [host, content] = await page.locator('kassa-checkout').evaluate((element) => {
          const surface = element.shadowRoot!.querySelector('.surface')!;
          const style = getComputedStyle(surface);
          const bottom = surface.lastElementChild!.getBoundingClientRect().bottom + parseFloat(style.paddingBottom) + 1;
          return [element.getBoundingClientRect().height, bottom - surface.getBoundingClientRect().top];
        });
        assert.ok(Math.abs(host - content) <= 2, `the ready card is ${host} px for ${content} px of content`);
        assert.equal(await page.getByRole('button', { name: 'Pay with your phone' }).count(), 0);
        await keepScreenshot(page, SUITE, 'ready');
      }
      await page.getByRole('button', { name: 'Pay by bank' }).click();
      await answerAtBank(page, 'Authorise payment');
      await waitForPhase(page, 'completed');
      await page.locator('kassa-checkout [part="receipt-quote"]').waitFor();
      const rows = await receiptRows(page);
      assert.deepEqual(
        rows.map(({ label, above }) => [label, above]),
        ['Amount', 'Reference', 'Paid on', 'Bank', 'Payment reference to quote'].map((label) => [label, true]),
      );
      for (const { label, lines } of rows.filter((row) =>
        ['Paid on', 'Payment reference to quote'].includes(row.label),
      ))
        assert.equal(lines, 1, `${label} on one line`);
      await keepScreenshot(page, SUITE, 'receipt');
      await page.context().request.post(`${env.shop.origin}/new-order`);
    });

  it('paying for a computer with the phone: the phone’s pages keep a margin to the screen’s edges', async () => {
    const desktop = await open('desktop');
    await waitForPhase(desktop, 'ready');
    await desktop.getByRole('button', { name: 'Pay with your phone' }).click();
    await waitForPhase(desktop, 'phone');
    const link = ((await desktop.locator('kassa-checkout [part="handoff-url"]').textContent()) ?? '').trim();
    const phone = await open('phone', link);
    await phone.waitForURL(/\/pay\/flow\//);
    for (const margin of await margins(phone)) assert.ok(margin >= 16, `the bank's page: ${margin} px to the edge`);
    await answerAtBank(phone, 'Authorise payment');
    await phone.locator('main[data-outcome="completed"]').waitFor({ timeout: PATIENCE_MS });
    for (const margin of await margins(phone)) assert.ok(margin >= 16, `"Payment done": ${margin} px to the edge`);
    await keepScreenshot(phone, SUITE, 'phone-payment-done');
    await waitForPhase(desktop, 'completed');
  });
});
