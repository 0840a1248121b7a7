/**
 * The on-ramp for a customer with no wallet in the browser, on the demo shop's /buy page (strict CSP,
 * Trusted Types) in Chromium at phone size (390×844, touch) and laptop size (1280×800): the wallet
 * apps' universal links carry the page's address; a computer shows the page's QR code for the phone;
 * "Use an address" buys with a signature made outside the page (an anvil account's key, here in the
 * test with ethers), which the proxy checks as any wallet's: a signature of another key is refused
 * before any payment, a pasted private key never leaves the page, and the right one buys 20 eEUR,
 * paid at the sandbox bank and minted on Kassa Local Two. Screenshots: test-artifacts/onramp-without-wallet/.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parseUnits, type Wallet } from 'ethers';
import type { Browser, BrowserContext, Page } from 'playwright';
import { launchChromium, watchProblems } from '../support/browser.ts';
import { anvilAccount } from '../support/chains.ts';
import { mintsTo, ONRAMP_ENV } from '../support/onramp.ts';
import { keepScreenshot, SCREENS } from '../support/screenshots.ts';
import { startShopStack, type ShopStack } from '../support/shop-stack.ts';
import { answerAtBank } from './support/bank.ts';
import { keyMaterialIn, type RecordedRequest } from './support/bridge-page.ts';
import { scanQr } from './support/phone.ts';

const SUITE = 'onramp-without-wallet';
const TWO = 31338;

describe('e2e: the on-ramp without a wallet in the browser', () => {
  let env: ShopStack;
  let browser: Browser;
  const contexts: BrowserContext[] = [];
  const requests: RecordedRequest[] = [];
  const problems: string[][] = [];

  before(async () => {
    [env, browser] = await Promise.all([
      startShopStack({ env: ONRAMP_ENV, mintMs: 500, settlementMs: 300 }),
      launchChromium(),
    ]);
  });
  after(async () => {
    for (const seen of problems) assert.deepEqual(seen, [], 'no console error or CSP report on any page');
    await Promise.all(contexts.map((context) => context.close()));
    await browser.close();
    await env.stop();
  });

  /** /buy in a fresh context of this size, every request recorded. */
  async function openBuy(screen: keyof typeof SCREENS): Promise<{ page: Page; context: BrowserContext }> {
    const context = await browser.newContext(SCREENS[screen]);
    contexts.push(context);
    const page = await context.newPage();
    problems.push(watchProblems(page));
    page.on('request', (request) =>
      requests.push({
        url: request.url(),
        method: request.method(),
        headers: request.headers(),
        postData: request.postData(),
      }),
    );
    await page.goto(`${env.shop.origin}/buy`);
    await page.locator('kassa-onramp [part="first-run"]').waitFor();
    return { page, context };
  }

  const phase = (page: Page, name: string, timeout = 30_000) =>
    page.locator(`kassa-onramp[phase="${name}"]`).waitFor({ timeout });
  const statusSays = (page: Page, text: string) =>
    page.locator('kassa-onramp [part="status"]', { hasText: text }).waitFor();

  /** "Use an address" with `account`'s address, then 20 eEUR on Kassa Local Two and "Buy": the message to sign. */
  async function buyFor(page: Page, account: Wallet): Promise<string> {
    await page.getByRole('button', { name: 'Use an address' }).click();
    await page.getByLabel('Your wallet address').fill(account.address);
    await page.getByLabel('Your wallet address').press('Enter');
    await phase(page, 'ready');
    return askToSign(page);
  }

  async function askToSign(page: Page): Promise<string> {
    await page.getByLabel('Network').selectOption(String(TWO));
    await page.getByLabel('You receive').fill('20');
    await page.getByRole('button', { name: 'Buy 20 eEUR' }).click();
    await phase(page, 'signing');
    const message = page.getByLabel('Message to sign');
    await message.waitFor();
    return message.inputValue();
  }

  it('a phone: each wallet app’s universal link opens this very page in the app', async () => {
    const { page } = await openBuy('phone');
    const url = page.url();
    const links = await page.locator('kassa-onramp [part="wallet-app"]').evaluateAll((anchors) =>
      anchors.map((anchor) => [
        // The app's name, without its logo's initial.
        [...anchor.childNodes]
          .filter((node) => node.nodeType === Node.TEXT_NODE)
          .map((node) => node.textContent)
          .join('')
          .trim(),
        anchor.getAttribute('href'),
      ]),
    );
    assert.deepEqual(Object.fromEntries(links), {
      MetaMask: `https://link.metamask.io/dapp/${url.replace(/^http:\/\//, '')}`,
      'Coinbase Wallet': `https://go.cb-w.com/dapp?cb_url=${encodeURIComponent(url)}`,
      'Trust Wallet': `https://link.trustwallet.com/open_url?coin_id=60&url=${encodeURIComponent(url)}`,
      Phantom: `https://phantom.app/ul/browse/${encodeURIComponent(url)}?ref=${encodeURIComponent(env.shop.origin)}`,
    });
    assert.equal(await page.locator('kassa-onramp [part~="qr"]').count(), 0, 'no QR code on the phone itself');
    assert.equal(await page.locator('kassa-onramp').evaluate((element) => element.getBoundingClientRect().height), 412);
    await keepScreenshot(page, SUITE, 'no-wallet');
  });

  it('a computer: the page’s QR code, to go on with the phone', async () => {
    const { page, context } = await openBuy('desktop');
    assert.equal(await scanQr(page, context, 'kassa-onramp [part~="qr"]'), page.url());
    assert.equal(await page.locator('kassa-onramp [part="wallet-app"]').count(), 0);
    await keepScreenshot(page, SUITE, 'no-wallet');
  });

  it('"Use an address": another key’s signature is refused before any payment; a private key pasted never leaves the page', async () => {
    const { page } = await openBuy('phone');
    const owner = anvilAccount(7);
    const paymentsBefore = (await env.payments()).length;
    await page.getByRole('button', { name: 'Use an address' }).click();
    await keepScreenshot(page, SUITE, 'address');
    await page.getByLabel('Your wallet address').fill('0x1234');
    await page.getByRole('button', { name: 'Continue' }).click();
    assert.equal(await page.getByLabel('Your wallet address').getAttribute('aria-invalid'), 'true');
    await page.getByLabel('Your wallet address').fill(owner.address);
    await page.getByRole('button', { name: 'Continue' }).click();
    await phase(page, 'ready');
    assert.equal(await page.locator('kassa-onramp [data-field="account"]').getAttribute('title'), owner.address);
    const message = await askToSign(page);
    assert.match(message, new RegExp(`^${new URL(env.shop.origin).host.replace(/\./g, '\\.')} wants you to sign in`));
    assert.match(message, new RegExp(`\\n${owner.address}\\n\\nBuy 20 eEUR on Kassa Local Two for 20\\.00 EUR`));
    await keepScreenshot(page, SUITE, 'sign');

    // The key instead of the signature: refused in the page, sent nowhere.
    await page.getByLabel('Signature').fill(owner.privateKey);
    await page.getByRole('button', { name: 'Confirm purchase' }).click();
    await page.locator('kassa-onramp #signature-hint', { hasText: 'This looks like a private key.' }).waitFor();
    assert.equal(await page.locator('kassa-onramp').getAttribute('phase'), 'signing');

    // Another key's signature of the very message: the proxy refuses it, nothing is created.
    await page.getByLabel('Signature').fill(await anvilAccount(8).signMessage(message));
    await page.getByRole('button', { name: 'Confirm purchase' }).click();
    await statusSays(page, 'The signature does not prove that this wallet is yours, so no payment was started.');
    assert.equal(await page.locator('kassa-onramp').getAttribute('phase'), 'ready');
    assert.equal(await page.locator('kassa-onramp kassa-checkout').count(), 0);
    const listed = await env.stack.operator(`/api/onramp/purchases?wallet=${owner.address}`);
    assert.deepEqual(listed.body.purchases, [], 'no purchase');
    assert.equal((await env.payments()).length, paymentsBefore, 'no payment');
    await keepScreenshot(page, SUITE, 'signature-refused');
    const keys = [owner.privateKey.slice(2)];
    assert.deepEqual(
      requests.map((request) => keyMaterialIn(request, keys)).filter(Boolean),
      [],
      'the pasted key left the page',
    );
  });

  it('"Use an address": the owner’s signature made outside the page buys 20 eEUR, paid at the bank and minted on chain', async () => {
    const { page } = await openBuy('phone');
    const owner = anvilAccount(9);
    const before = (await mintsTo(env.stack, TWO, 'eEUR', owner.address)).length;
    const message = await buyFor(page, owner);
    await page.getByLabel('Signature').fill(await owner.signMessage(message));
    await page.getByRole('button', { name: 'Confirm purchase' }).click();
    await phase(page, 'paying');
    await page.locator('kassa-onramp kassa-checkout[phase="ready"]').waitFor();
    await keepScreenshot(page, SUITE, 'paying');
    await page.getByRole('button', { name: 'Pay by bank' }).click();
    await answerAtBank(page, 'Authorise payment');
    await page.waitForURL(/\/buy\?/);
    await phase(page, 'delivered');
    await statusSays(page, '20 eEUR arrived in your wallet on Kassa Local Two.');
    const hash = ((await page.locator('kassa-onramp [part="hash"]').textContent()) ?? '').trim();
    const mints = await mintsTo(env.stack, TWO, 'eEUR', owner.address);
    assert.equal(mints.length - before, 1, 'minted once, to the address that proved it is the customer’s');
    assert.equal(mints.at(-1)!.transactionHash, hash);
    assert.equal(BigInt(mints.at(-1)!.data), parseUnits('20', 18));
    await keepScreenshot(page, SUITE, 'delivered');
  });
});
