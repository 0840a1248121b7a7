/**
 * The demo's wallet page as its states follow each other, at phone size (390×844) and laptop size
 * (1280×800), with a test wallet that announces itself (EIP-6963) and signs in this process: "No
 * wallet in this browser? Install the Kassa extension" only while the panel asks for a wallet; once
 * a transfer arrived, its success line above the receipt, and its hash shown once (in the receipt,
 * with its copy button). Screenshots: test-artifacts/wallet-page/.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright';
import { launchChromium } from '../support/browser.ts';
import { keepScreenshot, SCREENS } from '../support/screenshots.ts';
import { startShopStack, type ShopStack } from '../support/shop-stack.ts';
import { walletIconUri } from '../support/wallet/wallet-provider.ts';
import { TestWalletHub } from '../support/wallet/wallet-signer.ts';
import { bridgePhase, openWalletPage, type RecordedRequest } from './support/bridge-page.ts';

const SUITE = 'wallet-page';
const ONE = 31337;

describe('e2e: the wallet page’s states', () => {
  let env: ShopStack;
  let browser: Browser;
  let hub: TestWalletHub;
  const requests: RecordedRequest[] = [];

  before(async () => {
    [env, browser] = await Promise.all([startShopStack(), launchChromium()]);
    hub = new TestWalletHub(env.stack.sandbox.chains);
  });
  after(async () => {
    hub.close();
    await browser.close();
    await env.stop();
  });

  const helpShown = (page: Page) => page.locator('.wallet-help').isVisible();

  for (const [screen, account] of [
    ['phone', 3],
    ['desktop', 4],
  ] as const)
    it(`on a ${screen}: the install hint only while no wallet is connected; arrived: the success line, then the receipt with the hash once`, async () => {
      const id = `states-${screen}`;
      const wallet = hub.add({
        name: 'States Wallet',
        rdns: `test.kassa.${id}`,
        icon: walletIconUri('#0f766e', 'S'),
        chainId: ONE,
        id,
        account,
      });
      const { page, problems, context } = await openWalletPage(
        browser,
        `${env.shop.origin}/wallet`,
        hub,
        [wallet],
        requests,
        { screen: SCREENS[screen] },
      );
      try {
        await bridgePhase(page, 'connect');
        assert.equal(await helpShown(page), true, 'the hint while the panel asks for a wallet');
        await page.getByRole('button', { name: 'States Wallet' }).click();
        await bridgePhase(page, 'ready');
        assert.equal(await helpShown(page), false, 'no "No wallet in this browser?" with a wallet connected');
        await keepScreenshot(page, SUITE, 'connected');

        await page.getByLabel('Amount').fill('1.5');
        await page.getByRole('button', { name: 'Review transfer' }).click();
        await bridgePhase(page, 'review');
        await page.getByRole('button', { name: 'Confirm in wallet' }).click();
        await bridgePhase(page, 'arrived');
        const status = page.locator('kassa-bridge [part="status"]');
        const receipt = page.locator('kassa-bridge [part="receipt"]');
        await receipt.locator('[data-field="destination-hash"]').waitFor();
        const [statusBox, receiptBox] = [await status.boundingBox(), await receipt.boundingBox()];
        assert.ok(statusBox!.y + statusBox!.height <= receiptBox!.y, 'the success line is above the receipt');
        const hash = ((await page.locator('kassa-bridge [part="hash"]').textContent()) ?? '').trim();
        assert.match(hash, /^0x[0-9a-f]{64}$/);
        const shown = await page
          .locator('kassa-bridge')
          .evaluate(
            (element, text) =>
              [...element.shadowRoot!.querySelectorAll('*')].filter(
                (node) => node.children.length === 0 && node.textContent?.trim() === text,
              ).length,
            hash,
          );
        assert.equal(shown, 1, 'the transaction hash shows once');
        assert.equal(await helpShown(page), false);
        await keepScreenshot(page, SUITE, 'arrived');
        assert.deepEqual(problems, []);
      } finally {
        await context.close();
      }
    });
});
