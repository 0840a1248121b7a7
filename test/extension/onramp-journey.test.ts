/**
 * The on-ramp's journey with Kassa's own wallet (issue 28): the demo shop's /buy page (strict CSP,
 * Trusted Types), whose <kassa-onramp> finds Kassa through EIP-6963; the customer connects in Kassa's
 * approval window, asks for 25 eEUR on Kassa Local Two, and confirms the purchase's ownership proof
 * in Kassa's window, which shows it in words (the shop, the tokens, the chain, the price, the address,
 * the expiry); then pays at the sandbox bank, and the tokens arrive on the chain exactly once (the
 * balance and the mints read from the chain), shown with their hash, through a reload. Rejecting the
 * proof first starts no payment. No request of the page or of the extension carries the key or the
 * password. The same purchase as test/e2e/onramp-journeys.test.ts, whose wallets are injected.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { verifyMessage } from 'ethers';
import type { Page } from 'playwright';
import { ensureWidgetBuilt } from '../../demo/widget-build.ts';
import { answerAtBank } from '../support/bank.ts';
import { anvilAccount } from '../support/chains.ts';
import {
  approvalWindow as openedApproval,
  configure,
  importVaultKey,
  launchExtension,
  leaks,
  press,
  type LoadedExtension,
} from '../support/extension.ts';
import { balanceOf, mintsTo, ONRAMP_ENV, units } from '../support/onramp.ts';
import { startShopStack, type ShopStack } from '../support/shop-stack.ts';
import { PATIENCE_MS } from '../support/patience.ts';

const PASSWORD = 'the on-ramp shop password';
const ACCOUNT = anvilAccount(7);
const TWO = 31338;

const phase = (page: Page, name: string) =>
  page.locator(`kassa-onramp[phase="${name}"]`).waitFor({ timeout: PATIENCE_MS });
const partText = async (page: Page, part: string) =>
  ((await page.locator(`kassa-onramp [part~="${part}"]`).first().textContent()) ?? '').replace(/\s+/g, ' ').trim();
const shown = async (approval: Page, selector: string) =>
  ((await approval.locator(selector).first().textContent()) ?? '').replace(/\s+/g, ' ').trim();

describe('extension: the demo shop’s <kassa-onramp> with Kassa as the wallet', () => {
  let env: ShopStack;
  let extension: LoadedExtension;

  const approvalWindow = () => openedApproval(extension);
  /** What the proxy's operator sees of the purchases of the account. */
  const purchases = async () =>
    (await env.stack.operator(`/api/onramp/purchases?wallet=${ACCOUNT.address}`)).body.purchases as Array<{
      purchaseId: string;
      state: string;
    }>;

  before(async () => {
    ensureWidgetBuilt();
    // The issuer mints a second after an order: the page shows the purchase minting, then delivered.
    env = await startShopStack({ env: ONRAMP_ENV, mintMs: 1_000, settlementMs: 400 });
    extension = await launchExtension();
    await configure(extension, env.stack.proxy.origin);
    await importVaultKey(extension, ACCOUNT, PASSWORD);
  });
  after(async () => {
    await extension?.dispose();
    await env?.stop();
  });

  it('25 eEUR on Kassa Local Two: the proof confirmed in Kassa’s window, paid at the bank, on chain exactly once', async () => {
    const before = await balanceOf(env.stack, TWO, 'eEUR', ACCOUNT.address);
    const mintsBefore = (await mintsTo(env.stack, TWO, 'eEUR', ACCOUNT.address)).length;
    const paymentsBefore = (await env.payments()).length;
    const page = await extension.context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto(`${env.shop.origin}/buy`);
    await phase(page, 'connect');

    let opening = approvalWindow();
    await page.locator('kassa-onramp').getByRole('button', { name: 'Kassa' }).click();
    let approval = await opening;
    assert.equal(await approval.locator('#origin').textContent(), env.shop.origin);
    await press(approval, 'Connect');
    await phase(page, 'ready');
    await page.getByLabel('Network').selectOption(String(TWO));
    await page.getByLabel('You receive').fill('25');

    // The first time, the customer rejects the proof: nothing is bought, no payment starts.
    opening = approvalWindow();
    await page.getByRole('button', { name: 'Buy 25 eEUR' }).click();
    approval = await opening;
    await approval.getByRole('heading', { name: 'Confirm this purchase?' }).waitFor();
    await press(approval, 'Reject');
    await phase(page, 'ready');
    assert.deepEqual(await purchases(), [], 'no purchase');
    assert.equal((await env.payments()).length, paymentsBefore, 'no payment');

    // Then confirms it: Kassa shows the proof in words, with the shop's own origin.
    opening = approvalWindow();
    await page.getByRole('button', { name: 'Buy 25 eEUR' }).click();
    approval = await opening;
    await approval.getByRole('heading', { name: 'Confirm this purchase?' }).waitFor();
    const host = new URL(env.shop.origin).host;
    assert.equal(await shown(approval, '#proof-asks'), `${host} asks you to confirm a purchase:`);
    assert.equal(
      await shown(approval, '[data-field=purchase]'),
      `Buy 25 eEUR on Kassa Local Two for €25.00, delivered to ${ACCOUNT.address.slice(0, 6)}…${ACCOUNT.address.slice(-4)}.`,
    );
    assert.equal(await shown(approval, '#origin'), env.shop.origin);
    assert.equal(await shown(approval, '[data-field=chain]'), 'Kassa Local Two (chain 31338)');
    assert.equal(await shown(approval, '[data-field=address]'), ACCOUNT.address);
    assert.match(await shown(approval, '[data-field=expires]'), /^at .+ \(in (10|9) minutes\)$/);
    const message = (await approval.locator('[data-field=message]').textContent()) ?? '';
    assert.match(
      message,
      new RegExp(
        `^${host.replace(/\./g, '\\.')} wants you to sign in with your Ethereum account:\\n${ACCOUNT.address}\\n`,
      ),
    );
    await press(approval, 'Approve');

    await phase(page, 'paying');
    await page.locator('kassa-onramp kassa-checkout[phase="ready"]').waitFor();
    const [made] = await purchases();
    assert.equal(made?.state, 'awaiting_payment', 'the proxy accepted Kassa’s signature');
    await page.getByRole('button', { name: 'Pay by bank' }).click();
    await answerAtBank(page, 'Authorise payment');
    await page.waitForURL(/\/buy\?/);
    await phase(page, 'delivered');
    assert.equal(await partText(page, 'status'), '25 eEUR arrived in your wallet on Kassa Local Two.');
    const hash = await partText(page, 'hash');
    assert.match(hash, /^0x[0-9a-f]{64}$/);

    assert.equal(
      (await balanceOf(env.stack, TWO, 'eEUR', ACCOUNT.address)) - before,
      units('25'),
      'the balance read from the chain',
    );
    const mints = await mintsTo(env.stack, TWO, 'eEUR', ACCOUNT.address);
    assert.equal(mints.length - mintsBefore, 1, 'minted exactly once');
    assert.equal(mints.at(-1)!.transactionHash, hash, 'the hash shown is the mint');

    // The signature the proxy verified is the vault key's, over the message Kassa's window showed.
    const signed = extension.requests.find(
      (request) => request.url.endsWith('/api/onramp/purchases') && request.method === 'POST',
    );
    assert.ok(signed, 'the page sent the purchase');
    assert.equal(
      verifyMessage(message, (JSON.parse(signed.postData) as { signature: string }).signature),
      ACCOUNT.address,
    );

    // A reload: the same purchase, still delivered once.
    await page.reload();
    await phase(page, 'delivered');
    assert.equal(await partText(page, 'hash'), hash);
    assert.equal((await mintsTo(env.stack, TWO, 'eEUR', ACCOUNT.address)).length - mintsBefore, 1);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('no request of the page or of the extension carried the key or the password', () => {
    assert.ok(
      extension.requests.some(
        (request) => request.from.startsWith(env.shop.origin) && request.url.includes('/api/onramp/quotes'),
      ),
      'the page’s requests are recorded',
    );
    assert.deepEqual(leaks(extension.requests, [ACCOUNT.privateKey, PASSWORD]), []);
  });
});
