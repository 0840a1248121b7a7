/**
 * The demo's donation page: the customer types the amount in the element's own field, in their
 * language's notation, pays, and starts again for a second donation in the same tab.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright';
import { answerAtBank } from './support/bank.ts';
import { launchChromium, partText, waitForPhase, watchProblems } from '../support/browser.ts';
import { startShopStack, type ShopStack } from '../support/shop-stack.ts';

describe('e2e: an amount the customer chooses', () => {
  let env: ShopStack;
  let browser: Browser;

  before(async () => {
    [env, browser] = await Promise.all([startShopStack({ settlementMs: 0 }), launchChromium()]);
  });
  after(async () => {
    await browser.close();
    await env.stop();
  });

  it('a German customer types 12,50; out of bounds is refused with the reason; then Start again', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const problems = watchProblems(page);
    await page.goto(`${env.shop.origin}/donate`);
    await waitForPhase(page, 'ready');
    await page.locator('kassa-checkout').evaluate((element) => element.setAttribute('locale', 'de'));
    const field = page.getByRole('textbox', { name: 'Betrag (EUR)' });
    const pay = page.getByRole('button', { name: 'Per Bank bezahlen' });
    await field.fill('600');
    assert.equal(await partText(page, 'amount-hint'), 'Geben Sie einen Betrag von 1,00 € bis 500,00 € ein.');
    assert.equal(await pay.getAttribute('aria-disabled'), 'true');
    await field.fill('abc');
    assert.equal(await pay.getAttribute('aria-disabled'), 'true');
    await field.fill('12,50');
    assert.equal(await partText(page, 'amount-hint'), 'Von 1,00 € bis 500,00 €');
    assert.equal(await pay.getAttribute('aria-disabled'), 'false');
    await pay.click();
    await page.waitForURL(/\/pay\/flow\//);
    assert.equal(await page.locator('html').getAttribute('lang'), 'de', 'the bank speaks the element’s language');
    await answerAtBank(page, 'Authorise payment');
    await waitForPhase(page, 'completed');
    // Back from the bank, a new page: the shop's page is in English, this customer reads German.
    await page.locator('kassa-checkout').evaluate((element) => element.setAttribute('locale', 'de'));
    assert.equal(await partText(page, 'amount'), '12,50 €');
    const paid = (await env.payments()).filter((payment) => payment.amount === '12.50');
    assert.equal(paid.length, 1);

    await page.getByRole('button', { name: 'Neu beginnen' }).click();
    await waitForPhase(page, 'ready');
    assert.equal(await field.inputValue(), '');
    await field.fill('3');
    await pay.click();
    await answerAtBank(page, 'Cancel');
    await waitForPhase(page, 'failed');
    await page.locator('kassa-checkout').evaluate((element) => element.setAttribute('locale', 'de'));
    await page.getByRole('button', { name: 'Betrag ändern' }).click();
    await waitForPhase(page, 'ready');
    assert.equal(await field.inputValue(), '3');
    assert.deepEqual(problems, []);
    await context.close();
  });
});
