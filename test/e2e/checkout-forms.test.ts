/**
 * The checkout's forms as a customer uses them on the demo shop, at phone size (390×844, touch) and
 * laptop size (1280×800): on /donate, with an amount that cannot be paid, "Pay by bank" (and on a
 * laptop "Pay with your phone") look and say disabled, and start nothing; Enter in the amount field
 * pays as "Pay by bank" does, or says what is wrong with the amount; back from the bank, keyboard focus is on the payment's status, not
 * lost on the page. Screenshots: test-artifacts/checkout-forms/.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Locator, Page } from 'playwright';
import { launchChromium, partText, waitForPhase, watchProblems } from '../support/browser.ts';
import { keepScreenshot, SCREENS } from '../support/screenshots.ts';
import { startShopStack, type ShopStack } from '../support/shop-stack.ts';
import { answerAtBank } from './support/bank.ts';

const SUITE = 'checkout-forms';

describe('e2e: the checkout’s forms', () => {
  let env: ShopStack;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  const problems: string[][] = [];

  before(async () => {
    [env, browser] = await Promise.all([startShopStack({ settlementMs: 300 }), launchChromium()]);
  });
  after(async () => {
    for (const seen of problems) assert.deepEqual(seen, []);
    await Promise.all(contexts.map((context) => context.close()));
    await browser.close();
    await env.stop();
  });

  async function open(screen: keyof typeof SCREENS, path: string): Promise<Page> {
    const context = await browser.newContext(SCREENS[screen]);
    contexts.push(context);
    const page = await context.newPage();
    problems.push(watchProblems(page));
    await page.goto(`${env.shop.origin}${path}`);
    await waitForPhase(page, 'ready');
    return page;
  }

  /** How a button looks and what it tells assistive technology. */
  const looks = (button: Locator) =>
    button.evaluate((element) => ({
      disabled: element.getAttribute('aria-disabled'),
      opacity: Number(getComputedStyle(element).opacity),
      cursor: getComputedStyle(element).cursor,
    }));

  for (const screen of ['phone', 'desktop'] as const)
    it(`/donate on a ${screen}: with no amount the ways to pay are visibly off, and start nothing; with one, on`, async () => {
      const page = await open(screen, '/donate');
      const pay = page.getByRole('button', { name: 'Pay by bank' });
      const phone = page.getByRole('button', { name: 'Pay with your phone' });
      const buttons = screen === 'desktop' ? [pay, phone] : [pay];
      // On a desktop "Pay with your phone" comes with its chunk, after the element is ready.
      if (screen === 'desktop') await phone.waitFor();
      assert.equal(await phone.count(), screen === 'desktop' ? 1 : 0);
      for (const button of buttons)
        assert.deepEqual(await looks(button), { disabled: 'true', opacity: 0.45, cursor: 'not-allowed' });
      await keepScreenshot(page, SUITE, 'donate-no-amount');
      for (const button of buttons) await button.click({ force: true });
      assert.equal(await page.locator('kassa-checkout').getAttribute('phase'), 'ready', 'nothing was started');

      await page.getByLabel('Amount (EUR)').fill('25');
      for (const button of buttons)
        assert.deepEqual(await looks(button), { disabled: 'false', opacity: 1, cursor: 'pointer' });
      await keepScreenshot(page, SUITE, 'donate-amount');
    });

  it('Enter in the amount field: an amount that cannot be paid says why; one that can goes to the bank', async () => {
    const page = await open('phone', '/donate');
    const field = page.getByLabel('Amount (EUR)');
    await field.press('Enter');
    assert.equal(await partText(page, 'amount-hint'), 'Enter an amount such as €12.50.');
    await field.fill('12.505');
    await field.press('Enter');
    assert.equal(await partText(page, 'amount-hint'), 'Use at most two decimals.');
    assert.equal(await page.locator('kassa-checkout').getAttribute('phase'), 'ready');
    await field.fill('25');
    await field.press('Enter');
    await page.waitForURL(/\/pay\/flow\//);
  });

  for (const screen of ['phone', 'desktop'] as const)
    it(`back from the bank on a ${screen}: keyboard focus is on the payment's status, and Tab goes on from there`, async () => {
      const page = await open(screen, '/');
      await page.getByRole('button', { name: 'Pay by bank' }).focus();
      await page.keyboard.press('Enter');
      await answerAtBank(page, 'Authorise payment');
      await page.waitForURL(new RegExp(`^${env.shop.origin}/`));
      await waitForPhase(page, 'completed');
      const focused = () =>
        page.evaluate(() => {
          const host = document.activeElement;
          const inside = host?.shadowRoot?.activeElement;
          return `${host?.localName} ${inside?.getAttribute('part') ?? inside?.textContent?.trim() ?? ''}`;
        });
      assert.equal(await focused(), 'kassa-checkout status');
      await keepScreenshot(page, SUITE, 'back-from-bank');
      await page.keyboard.press('Tab');
      assert.equal(await focused(), 'kassa-checkout secondary', 'the receipt’s copy button, next');
      await page.context().request.post(`${env.shop.origin}/new-order`);
    });
});
