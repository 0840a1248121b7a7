/**
 * The QR codes of the demo shop on a laptop (1280×800) when everything runs on this computer: the
 * checkout's "Pay with your phone" and the on-ramp's "Continue on your phone" say that their address
 * (127.0.0.1) is one a phone cannot open, and the console tells the developer what to do. Screenshots:
 * test-artifacts/qr-handoff/.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright';
import { launchChromium, waitForPhase, watchProblems } from '../support/browser.ts';
import { ONRAMP_ENV } from '../support/onramp.ts';
import { keepScreenshot, SCREENS } from '../support/screenshots.ts';
import { startShopStack, type ShopStack } from '../support/shop-stack.ts';

describe('e2e: QR codes that lead to this computer', () => {
  let env: ShopStack;
  let browser: Browser;

  before(async () => {
    [env, browser] = await Promise.all([startShopStack({ env: ONRAMP_ENV }), launchChromium()]);
  });
  after(async () => {
    await browser.close();
    await env.stop();
  });

  async function open(path: string): Promise<{ page: Page; warnings: string[]; problems: string[] }> {
    const page = await browser.newPage(SCREENS.desktop);
    const warnings: string[] = [];
    page.on('console', (message) => message.type() === 'warning' && warnings.push(message.text()));
    const problems = watchProblems(page);
    await page.goto(`${env.shop.origin}${path}`);
    return { page, warnings, problems };
  }

  const proxyHost = () => new URL(env.stack.proxy.origin).host;

  it('"Pay with your phone": the hand-off link is on 127.0.0.1, and the element says a phone cannot open it', async () => {
    const { page, warnings, problems } = await open('/');
    await waitForPhase(page, 'ready');
    await page.getByRole('button', { name: 'Pay with your phone' }).click();
    await waitForPhase(page, 'phone');
    const note = page.locator('kassa-checkout [part="qr-note"]');
    assert.equal(
      (await note.textContent())?.trim(),
      `This link leads to this computer (${proxyHost()}): a phone cannot open it.`,
    );
    assert.ok(
      warnings.some((line) => line.includes('<kassa-checkout>') && line.includes('npm start -- --lan')),
      JSON.stringify(warnings),
    );
    assert.deepEqual(problems, []);
    await keepScreenshot(page, 'qr-handoff', 'pay-with-your-phone');
    await page.close();
  });

  it('"Continue on your phone" on the on-ramp: the same, for the page’s own address', async () => {
    const { page, problems } = await open('/buy');
    const note = page.locator('kassa-onramp [part="qr-note"]');
    await note.waitFor();
    assert.equal(
      (await note.textContent())?.trim(),
      `This page is on this computer (${new URL(env.shop.origin).host}): a phone cannot open it.`,
    );
    assert.equal(await page.locator('kassa-onramp').evaluate((element) => element.getBoundingClientRect().height), 412);
    assert.deepEqual(problems, []);
    await keepScreenshot(page, 'qr-handoff', 'continue-on-your-phone');
    await page.close();
  });
});
