/**
 * The on-ramp's journeys on the demo shop's /buy page (strict CSP, Trusted Types), in Chromium,
 * against the real proxy, the emulator (its bank, and its issuer minting on the anvil chains), with
 * test wallets that announce themselves (EIP-6963) and sign in this process: 25 eEUR bought on Kassa
 * Local Two, paid at the sandbox bank, minted on chain exactly once, through a reload and in another
 * tab; a wallet whose signature is another key's refused before any payment; the bounds and the
 * wallet's daily limit refused with their reason. No request of any page carries key material.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { getAddress, id, parseUnits, zeroPadValue, ZeroAddress } from 'ethers';
import type { Browser, Page } from 'playwright';
import type { SandboxChain } from '../../sandbox/server.ts';
import { launchChromium } from '../support/browser.ts';
import { ONRAMP_ENV } from '../support/onramp.ts';
import { anvilAccount } from '../support/chains.ts';
import { startShopStack, type ShopStack } from '../support/shop-stack.ts';
import { eventually } from '../support/stack.ts';
import { walletIconUri } from '../support/wallet/wallet-provider.ts';
import { TestWalletHub, type TestWallet, type TestWalletOptions } from '../support/wallet/wallet-signer.ts';
import { answerAtBank, holdAtBank } from './support/bank.ts';
import { keyMaterialIn, openWalletPage, type RecordedRequest, type WalletPage } from './support/bridge-page.ts';
import { PATIENCE_MS } from '../support/patience.ts';

const TWO = 31338;
const EVENTS = ['kassa-onramp-status', 'kassa-onramp-delivered', 'kassa-error'];
const TRANSFER = id('Transfer(address,address,uint256)');

describe('e2e: the on-ramp', () => {
  let env: ShopStack;
  let browser: Browser;
  let hub: TestWalletHub;
  let two: SandboxChain;
  const requests: RecordedRequest[] = [];
  const pages: WalletPage[] = [];

  before(async () => {
    // The issuer mints 1.5 s after an order: long enough to reload the page while it mints.
    [env, browser] = await Promise.all([
      startShopStack({ env: ONRAMP_ENV, mintMs: 1_500, settlementMs: 400 }),
      launchChromium(),
    ]);
    hub = new TestWalletHub(env.stack.sandbox.chains);
    two = env.stack.sandbox.chains.find((chain) => chain.chainId === TWO)!;
  });
  after(async () => {
    for (const page of pages) assert.deepEqual(page.problems, [], 'no console error or CSP report on any page');
    for (const request of requests) assert.equal(keyMaterialIn(request), undefined);
    hub.close();
    await browser.close();
    await env.stop();
  });

  const wallet = (options: Partial<TestWalletOptions> & { id: string; account: number }) =>
    hub.add({
      name: `${options.id[0]!.toUpperCase()}${options.id.slice(1)} Wallet`,
      rdns: `test.kassa.${options.id}`,
      icon: walletIconUri('#0f766e', options.id[0]!.toUpperCase()),
      chainId: TWO,
      ...options,
    });

  async function open(chosen: TestWallet): Promise<WalletPage> {
    const opened = await openWalletPage(browser, `${env.shop.origin}/buy`, hub, [chosen], requests, { events: EVENTS });
    pages.push(opened);
    return opened;
  }

  const phase = (page: Page, name: string) =>
    page.locator(`kassa-onramp[phase="${name}"]`).waitFor({ timeout: PATIENCE_MS });
  const partText = async (page: Page, part: string) =>
    ((await page.locator(`kassa-onramp [part~="${part}"]`).first().textContent()) ?? '').replace(/\s+/g, ' ').trim();

  /** Connects `chosen`, asks for `amount` eEUR on Kassa Local Two and presses "Buy". */
  async function buy(page: Page, chosen: TestWallet, amount: string): Promise<void> {
    await phase(page, 'connect');
    await page.getByRole('button', { name: chosen.options.name }).click();
    await phase(page, 'ready');
    await page.getByLabel('Network').selectOption(String(TWO));
    await page.getByLabel('You receive').fill(amount);
    await page.getByRole('button', { name: `Buy ${amount} eEUR` }).click();
  }

  /** The token's mints (Transfer from the zero address) to `to` on Kassa Local Two. */
  const mintsTo = (to: string) =>
    hub.provider(TWO).getLogs({
      address: two.tokens.eEUR.address,
      topics: [TRANSFER, zeroPadValue(ZeroAddress, 32), zeroPadValue(to, 32)],
      fromBlock: 0,
    });

  it('25 eEUR on Kassa Local Two, paid at the sandbox bank: on chain exactly once, through a reload and in another tab, with its hash', async () => {
    const alpha = wallet({ id: 'alpha', account: 5 });
    const before = await hub.tokenBalance(TWO, two.tokens.eEUR.address, alpha.address);
    const mintsBefore = (await mintsTo(alpha.address)).length;
    const opened = await open(alpha);
    const { page } = opened;
    await buy(page, alpha, '25');
    await phase(page, 'paying');
    assert.deepEqual(alpha.signed.length, 1);
    assert.match(
      alpha.signed[0]!,
      new RegExp(
        `^${new URL(env.shop.origin).host.replace(/\./g, '\\.')} wants you to sign in with your Ethereum account:\\n${getAddress(alpha.address)}\\n\\nBuy 25 eEUR on Kassa Local Two for 25\\.00 EUR, delivered to this address\\.\\n`,
      ),
    );
    assert.match(page.url(), /[?&]kassa_purchase=[\w-]{43}/, 'the purchase’s link is in the address');

    await page.locator('kassa-onramp kassa-checkout[phase="ready"]').waitFor();
    // The issuer holds the order it is sent, so that "minting" lasts until the test has looked.
    assert.equal((await env.stack.control('/orders/faults', { kind: 'hold', times: 1 })).status, 201);
    await page.getByRole('button', { name: 'Pay by bank' }).click();
    await answerAtBank(page, 'Authorise payment');
    await page.waitForURL(/\/buy\?/);
    const minting = 'kassa-onramp[phase="paid"], kassa-onramp[phase="minting"]';
    await page.locator(minting).waitFor({ timeout: PATIENCE_MS });
    assert.doesNotMatch(page.url(), /kassa_status=/, 'the payment’s token left the address');
    const link = page.url();
    assert.match(link, /[?&]kassa_purchase=[\w-]{43}/);

    // A reload while it mints: the same purchase, followed on to its end.
    await page.reload();
    await page.locator(minting).waitFor({ timeout: PATIENCE_MS });
    const [orderId] = await eventually(async () => {
      const { held } = (await env.stack.control('/orders/faults')).body as { held: string[] };
      return held.length ? held : undefined;
    }, 'the order held at the issuer');
    assert.equal((await env.stack.control(`/orders/${orderId}/release`, {})).status, 200);
    await phase(page, 'delivered');
    assert.equal(await partText(page, 'status'), '25 eEUR arrived in your wallet on Kassa Local Two.');
    const hash = await partText(page, 'hash');
    assert.match(hash, /^0x[0-9a-f]{64}$/);
    const receipt = await hub.provider(TWO).getTransactionReceipt(hash);
    assert.equal(receipt?.status, 1, 'the hash shown is the mint on Kassa Local Two');
    await page.locator('kassa-onramp [data-field="new-balance"]').waitFor();

    const after = await hub.tokenBalance(TWO, two.tokens.eEUR.address, alpha.address);
    assert.equal(after - before, parseUnits('25', 18), 'the balance read from the chain');
    const mints = await mintsTo(alpha.address);
    assert.equal(mints.length - mintsBefore, 1, 'minted exactly once');
    assert.equal(mints.at(-1)!.transactionHash, hash);
    const delivered = (await opened.events()).filter((event) => event.type === 'kassa-onramp-delivered');
    assert.equal(delivered.length, 1);
    assert.equal((delivered[0]!.detail as { txHash: string }).txHash, hash);

    // The link in another tab: the same purchase, and still one mint.
    const other = await opened.context.newPage();
    await other.goto(link);
    await phase(other, 'delivered');
    assert.equal(await partText(other, 'hash'), hash);
    await other.close();
    assert.equal((await mintsTo(alpha.address)).length - mintsBefore, 1);
    await opened.context.close();
  });

  it('back from the bank, keyboard focus is on the status: the embedded checkout’s while it is paid, then the purchase’s, and Tab goes on from there', async () => {
    const delta = wallet({ id: 'delta', account: 9 });
    const opened = await open(delta);
    const { page } = opened;
    await buy(page, delta, '3');
    await page.locator('kassa-onramp kassa-checkout[phase="ready"]').waitFor({ timeout: PATIENCE_MS });
    await page.getByRole('button', { name: 'Pay by bank' }).focus();
    await page.keyboard.press('Enter');
    // Held at the bank: back on /buy, the purchase still waits for its payment, in the embedded checkout.
    const bank = await holdAtBank(page, env.stack);
    await answerAtBank(page, 'Authorise payment');
    await page.waitForURL(/\/buy\?/);
    await page.locator('kassa-onramp kassa-checkout[phase="waiting"]').waitFor({ timeout: PATIENCE_MS });
    /** The focused element, through the shadow roots: each host's name, then the focused part. */
    const focused = () =>
      page.evaluate(() => {
        const path: string[] = [];
        let active = document.activeElement;
        while (active?.shadowRoot) {
          path.push(active.localName);
          active = active.shadowRoot.activeElement;
        }
        path.push(active?.getAttribute('part') ?? active?.localName ?? 'nothing');
        return path.join(' ');
      });
    assert.equal(await focused(), 'kassa-onramp kassa-checkout status');
    // Paid: the checkout goes, with its focus; the purchase's status takes it.
    await bank.release();
    await phase(page, 'delivered');
    assert.equal(await focused(), 'kassa-onramp status');
    await page.keyboard.press('Tab');
    assert.equal(await focused(), 'kassa-onramp button', '"Buy more", next');
    assert.equal(await partText(page, 'button'), 'Buy more');
    await opened.context.close();
  });

  it('a wallet whose signature comes from another key is refused before any payment', async () => {
    const bravo = wallet({ id: 'bravo', account: 6, signsWith: 7 });
    const opened = await open(bravo);
    const { page } = opened;
    const paymentsBefore = (await env.payments()).length;
    await buy(page, bravo, '25');
    await page
      .locator('kassa-onramp [part="status"]', {
        hasText: 'The signature does not prove that this wallet is yours, so no payment was started.',
      })
      .waitFor();
    assert.equal(await page.locator('kassa-onramp').getAttribute('phase'), 'ready');
    assert.equal(await page.locator('kassa-onramp kassa-checkout').count(), 0);
    const listed = await env.stack.operator(`/api/onramp/purchases?wallet=${bravo.address}`);
    assert.deepEqual(listed.body.purchases, [], 'no purchase');
    assert.equal((await env.payments()).length, paymentsBefore, 'no payment');
    const [error] = (await opened.events()).filter((event) => event.type === 'kassa-error');
    assert.deepEqual(
      { ...(error!.detail as object), message: undefined },
      { kind: 'rejected', stage: 'purchase', status: 400, message: undefined },
    );
    await opened.context.close();
  });

  it('the bounds and the wallet’s daily limit are refused with their reason', async () => {
    const charlie = wallet({ id: 'charlie', account: 8 });
    // Earlier purchases of the same wallet (made on another page of the shop, not yet paid) count
    // towards its 1,000 a day.
    const fromShop = { Origin: env.shop.origin };
    for (const amount of ['500', '490']) {
      const quote = await env.stack.browser('/api/onramp/quotes', {
        body: { wallet: charlie.address, chainId: TWO, symbol: 'eEUR', amount },
        headers: fromShop,
      });
      const signature = await anvilAccount(8).signMessage(quote.body.message as string);
      const made = await env.stack.browser('/api/onramp/purchases', {
        body: { quoteId: quote.body.quoteId, signature },
        headers: fromShop,
      });
      assert.equal(made.status, 201, made.text);
    }
    const opened = await open(charlie);
    const { page } = opened;
    await phase(page, 'connect');
    await page.getByRole('button', { name: 'Charlie Wallet' }).click();
    await phase(page, 'ready');
    await page.getByLabel('Network').selectOption(String(TWO));
    for (const [amount, reason] of [
      ['501', 'The largest purchase is 500 eEUR.'],
      ['0.5', 'The smallest purchase is 1 eEUR.'],
    ]) {
      await page.getByLabel('You receive').fill(amount!);
      await page.getByRole('button', { name: 'Buy', exact: true }).click();
      assert.equal(await partText(page, 'amount-hint'), reason);
      assert.equal(await page.getByLabel('You receive').getAttribute('aria-invalid'), 'true');
    }
    assert.equal(charlie.signed.length, 0, 'nothing to sign out of bounds');

    await page.getByLabel('You receive').fill('25');
    await page.getByRole('button', { name: 'Buy 25 eEUR' }).click();
    await page
      .locator('kassa-onramp [part="status"]', {
        hasText: 'This wallet can buy at most 10 eEUR more in the next 24 hours.',
      })
      .waitFor();
    assert.equal(charlie.signed.length, 0, 'refused before anything is signed');
    const [error] = (await opened.events()).filter((event) => event.type === 'kassa-error');
    assert.deepEqual(
      { ...(error!.detail as object), message: undefined },
      { kind: 'rejected', stage: 'quote', status: 422, message: undefined },
    );
    await opened.context.close();
  });
});
