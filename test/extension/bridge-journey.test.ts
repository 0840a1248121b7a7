/**
 * The full journey: the demo shop's wallet page (strict CSP, Trusted Types), whose <kassa-bridge>
 * finds Kassa through EIP-6963; the user connects in Kassa's approval window, reviews a transfer in
 * the panel, sees the same transfer in Kassa's approval window, rejects once (4001: the panel says
 * so) and approves; the tokens arrive on the destination chain. No request of the page or of the
 * extension carries the key or the password.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { formatUnits, parseUnits } from 'ethers';
import type { Page } from 'playwright';
import { ensureWidgetBuilt } from '../../demo/widget-build.ts';
import { startShopStack, type ShopStack } from '../support/shop-stack.ts';
import { anvilAccount, chainProviders, token } from '../support/chains.ts';
import {
  approvalWindow as openedApproval,
  configure,
  importVaultKey,
  launchExtension,
  leaks,
  press,
  type LoadedExtension,
} from '../support/extension.ts';
import { PATIENCE_MS } from '../support/patience.ts';

const PASSWORD = 'the demo shop password';
const ACCOUNT = anvilAccount(2);

const bridgePhase = (page: Page, phase: string) =>
  page.locator(`kassa-bridge[phase="${phase}"]`).waitFor({ timeout: PATIENCE_MS });
const bridgeText = async (page: Page, selector: string) =>
  ((await page.locator(`kassa-bridge ${selector}`).first().textContent()) ?? '').replace(/\s+/g, ' ').trim();

describe('extension: the demo shop’s <kassa-bridge> with Kassa as the wallet', () => {
  let env: ShopStack;
  let extension: LoadedExtension;
  let chains: ReturnType<typeof chainProviders>;

  const approvalWindow = () => openedApproval(extension);
  const balance = async (chainId: number) => {
    const chain = env.stack.sandbox.chains.find((candidate) => candidate.chainId === chainId)!;
    return (await token(chain, 'eUSD', chains.get(chainId)).getFunction('balanceOf')(ACCOUNT.address)) as bigint;
  };

  before(async () => {
    ensureWidgetBuilt();
    env = await startShopStack();
    chains = chainProviders(env.stack.sandbox.chains);
    extension = await launchExtension();
    await configure(extension, env.stack.proxy.origin);
    await importVaultKey(extension, ACCOUNT, PASSWORD);
  });
  after(async () => {
    chains?.destroy();
    await extension?.dispose();
    await env?.stop();
  });

  it('connects, previews, is rejected once, then approved: the tokens arrive', async () => {
    const initial = { one: await balance(31337), two: await balance(31338) };
    const page = await extension.context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto(`${env.shop.origin}/wallet`);
    await bridgePhase(page, 'connect');
    const choice = page.getByRole('button', { name: 'Kassa' });
    assert.match((await choice.locator('img').getAttribute('src')) ?? '', /^data:image\/svg\+xml;base64,/);

    let opening = approvalWindow();
    await choice.click();
    let approval = await opening;
    assert.equal(await approval.locator('#origin').textContent(), env.shop.origin);
    await press(approval, 'Connect');
    await bridgePhase(page, 'ready');
    assert.match(
      await bridgeText(page, '[part="account"]'),
      new RegExp(`Kassa ${ACCOUNT.address.slice(0, 6)}…${ACCOUNT.address.slice(-4)} Copy on Kassa Local One`),
    );

    await page.getByLabel('Amount').fill('12.5');
    await page.getByRole('button', { name: 'Review transfer' }).click();
    await bridgePhase(page, 'review');
    assert.equal(await bridgeText(page, '[data-field="burn"]'), '12.5 eUSD on Kassa Local One');

    // The panel asks Kassa to send; Kassa shows the same transfer, decoded by the same preview.
    opening = approvalWindow();
    await page.getByRole('button', { name: 'Confirm in wallet' }).click();
    approval = await opening;
    assert.equal((await approval.locator('[data-field=burn]').textContent())?.trim(), '12.5 eUSD on Kassa Local One');
    assert.equal((await approval.locator('[data-field=mint]').textContent())?.trim(), '12.5 eUSD on Kassa Local Two');
    assert.equal((await approval.locator('[data-field=recipient] .mono').textContent())?.trim(), ACCOUNT.address);
    assert.equal(
      (await approval.locator('[data-field=method]').textContent())?.trim(),
      'reforge(uint256,uint256,address)',
    );
    const approvalPreview = ((await approval.locator('[part=preview] dl').textContent()) ?? '')
      .replace(/\s+/g, ' ')
      .trim();
    assert.equal(
      approvalPreview,
      await bridgeText(page, '[part="preview"] dl'),
      'the window and the panel show the same words',
    );
    await press(approval, 'Reject');
    await page
      .locator('kassa-bridge [part="status"]', {
        hasText: 'You rejected the request in your wallet. Nothing was sent.',
      })
      .waitFor();
    assert.equal(await balance(31337), initial.one, 'nothing was sent');

    opening = approvalWindow();
    await page.getByRole('button', { name: 'Confirm in wallet' }).click();
    approval = await opening;
    await press(approval, 'Approve');
    await bridgePhase(page, 'arrived');
    assert.equal(await bridgeText(page, '[part="status"]'), '12.5 eUSD arrived on Kassa Local Two.');
    assert.equal(initial.one - (await balance(31337)), parseUnits('12.5', 18), 'burned on the source chain');
    assert.equal((await balance(31338)) - initial.two, parseUnits('12.5', 18), 'arrived on the destination chain');
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('a German page: the approval window speaks German; the wallet tab shows the transfer arrived, and the balances', async () => {
    const page = await extension.context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto(`${env.shop.origin}/wallet`);
    await page.evaluate(() => (document.documentElement.lang = 'de'));
    await bridgePhase(page, 'connect');
    await page.locator('kassa-bridge [part="wallet"]').click();
    await bridgePhase(page, 'ready');
    await page.locator('kassa-bridge #amount').fill('3');
    await page.locator('kassa-bridge [part="button"]').click();
    await bridgePhase(page, 'review');
    const opening = approvalWindow();
    await page.locator('kassa-bridge [part="button"]').click();
    const approval = await opening;
    await approval.getByRole('heading', { name: 'Diese Übertragung bestätigen?' }).waitFor();
    assert.equal(await approval.evaluate(() => document.documentElement.lang), 'de');
    assert.equal((await approval.locator('[data-field=burn]').textContent())?.trim(), '3 eUSD auf Kassa Local One');
    assert.match((await approval.locator('[part=preview]').textContent()) ?? '', /Was Sie gleich signieren/);
    await press(approval, 'Bestätigen');
    await bridgePhase(page, 'arrived');
    const hash = await bridgeText(page, '[part="hash"]');

    const wallet = await extension.openPage('ui/popup.html?tab=wallet');
    const entry = wallet.locator(`#activity li[data-hash="${hash}"]`);
    await entry.and(wallet.locator('[data-state="arrived"]')).waitFor({ timeout: PATIENCE_MS });
    assert.match(
      ((await entry.textContent()) ?? '').replace(/\s+/g, ' '),
      /3 eUSD · Kassa Local One → Kassa Local Two Arrived/,
    );
    const shown = (
      await wallet.locator('#balances tr[data-chain="31338"][data-symbol="eUSD"] td').last().textContent()
    )?.trim();
    const expected = new Intl.NumberFormat('en', { maximumFractionDigits: 6 }).format(
      formatUnits(await balance(31338), 18) as Intl.StringNumericLiteral,
    );
    assert.equal(shown, expected);
    assert.deepEqual(problems, []);
    await wallet.close();
    await page.close();
  });

  it('no request of the page or of the extension carried the key or the password', () => {
    assert.ok(
      extension.requests.some(
        (request) => request.from.startsWith(env.shop.origin) && request.url.includes('/api/bridge/prepare'),
      ),
      'the page’s requests are recorded',
    );
    assert.ok(
      extension.requests.some(
        (request) => request.from === 'service worker' && request.postData.includes('eth_sendRawTransaction'),
      ),
      'the extension’s requests are recorded',
    );
    assert.deepEqual(leaks(extension.requests, [ACCOUNT.privateKey, PASSWORD]), []);
  });
});
