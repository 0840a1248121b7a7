/**
 * A shop that set something up wrong, as a newcomer meets it: the demo's /donate page (an amount the
 * customer chooses) on a proxy without KASSA_OPEN_AMOUNT. The customer reads the usual friendly words;
 * the page hears `kassa-error` with its code; the console names the setting to change. Screenshots:
 * test-artifacts/misconfiguration/. (Every other misconfiguration: test/components/misconfiguration.test.ts.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Browser } from 'playwright';
import { launchChromium, partText, waitForPhase, watchProblems } from '../support/browser.ts';
import { keepScreenshot, SCREENS } from '../support/screenshots.ts';
import { startShopStack, type ShopStack } from '../support/shop-stack.ts';
import { PATIENCE_MS } from '../support/patience.ts';

describe('e2e: a misconfigured shop', () => {
  let env: ShopStack;
  let browser: Browser;

  before(async () => {
    [env, browser] = await Promise.all([startShopStack({ env: { KASSA_OPEN_AMOUNT: 'off' } }), launchChromium()]);
  });
  after(async () => {
    await browser.close();
    await env.stop();
  });

  for (const screen of ['phone', 'desktop'] as const)
    it(`/donate without KASSA_OPEN_AMOUNT on a ${screen}: kassa-error "open-amount-off", and a console warning naming the setting`, async () => {
      const context = await browser.newContext(SCREENS[screen]);
      try {
        const page = await context.newPage();
        const problems = watchProblems(page);
        const warnings: string[] = [];
        page.on('console', (message) => message.type() === 'warning' && warnings.push(message.text()));
        await page.addInitScript(() =>
          document.addEventListener('kassa-error', (event) =>
            ((window as unknown as { kassaErrors: unknown[] }).kassaErrors ??= []).push((event as CustomEvent).detail),
          ),
        );
        await page.goto(`${env.shop.origin}/donate`);
        await waitForPhase(page, 'error');
        assert.equal(await partText(page, 'status'), "This shop can't take this payment here.");
        const errors = await page.evaluate(() => (window as unknown as { kassaErrors: unknown[] }).kassaErrors);
        assert.deepEqual(errors, [
          {
            kind: 'misconfigured',
            code: 'open-amount-off',
            status: 0,
            message: 'the proxy takes no open amounts',
          },
        ]);
        // The warning comes from a chunk fetched for it, a moment after the event.
        const warned = (line: string) => /<kassa-checkout>.*Set KASSA_OPEN_AMOUNT on the proxy/.test(line);
        for (let waited = 0; !warnings.some(warned) && waited < PATIENCE_MS; waited += 20) await sleep(20);
        assert.ok(warnings.some(warned), JSON.stringify(warnings));
        assert.deepEqual(problems, []);
        await keepScreenshot(page, 'misconfiguration', 'donate-open-amount-off');
      } finally {
        await context.close();
      }
    });
});
