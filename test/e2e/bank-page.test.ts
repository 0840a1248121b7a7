/**
 * The sandbox bank's page as a customer of the demo shop meets it, at phone size (390×844) and laptop
 * size (1280×800): who is paid (the shop's name, as the demo names its sandbox key), the banks with a
 * logo each and a search that narrows them, no script. Screenshots: test-artifacts/bank-page/.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright';
import { launchChromium, waitForPhase, watchProblems } from '../support/browser.ts';
import { keepScreenshot, SCREENS } from '../support/screenshots.ts';
import { startShopStack, type ShopStack } from '../support/shop-stack.ts';
import { answerAtBank } from './support/bank.ts';

describe('e2e: the sandbox bank’s page', () => {
  let env: ShopStack;
  let browser: Browser;

  before(async () => {
    [env, browser] = await Promise.all([startShopStack({ settlementMs: 0 }), launchChromium()]);
    // As the demo does (demo/demo.ts): the key's name is the shop's, shown as the payee.
    const { sandbox } = env.stack;
    const renamed = await fetch(`${sandbox.control}/keys/${sandbox.keyId}`, {
      method: 'PATCH',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Kassa demo shop' }),
    });
    assert.equal(renamed.status, 200);
  });
  after(async () => {
    await browser.close();
    await env.stop();
  });

  for (const screen of ['phone', 'desktop'] as const)
    it(`on a ${screen}: the payee, the banks with their logos, a search, and paying from it`, async () => {
      const context = await browser.newContext(SCREENS[screen]);
      try {
        const page = await context.newPage();
        const problems = watchProblems(page);
        await page.goto(env.shop.origin);
        await waitForPhase(page, 'ready');
        await page.getByRole('button', { name: 'Pay by bank' }).click();
        await page.waitForURL(/\/pay\/flow\//);
        assert.equal(
          ((await page.locator('.payee').textContent()) ?? '').replace(/\s+/g, ' ').trim(),
          'To Kassa demo shop',
        );
        const banks = page.getByRole('group', { name: 'Choose your bank' }).getByRole('radio');
        assert.equal(await banks.count(), 6);
        assert.equal(await page.locator('.bank .logo').first().textContent(), 'X', 'XYZ Bank’s logo');
        assert.equal(await page.locator('script').count(), 0);
        await keepScreenshot(page, 'bank-page', 'chooser');

        await page.getByRole('searchbox', { name: 'Find your bank' }).fill('stroom');
        await page.getByRole('searchbox', { name: 'Find your bank' }).press('Enter');
        await page.waitForURL(/[?&]q=stroom/);
        assert.equal(await banks.count(), 1);
        await keepScreenshot(page, 'bank-page', 'search');
        await answerAtBank(page, 'Authorise payment', 'Stroom Bank');
        await waitForPhase(page, 'completed');
        assert.match(
          ((await page.locator('kassa-checkout [part="receipt"]').textContent()) ?? '').replace(/\s+/g, ' '),
          /Bank Stroom Bank/,
        );
        assert.deepEqual(problems, []);
        await context.request.post(`${env.shop.origin}/new-order`);
      } finally {
        await context.close();
      }
    });
});
