/**
 * The wallet panel's journeys on the demo shop's wallet page (strict CSP, Trusted Types), in
 * Chromium, against the real proxy, the emulator and its two anvil chains, with test wallets that
 * announce themselves (EIP-6963) and sign in this process: prepare, preview, sign, mined, arrived
 * with the right balances; a rejected signature; a wallet on the wrong chain, switched or added
 * (4902); two wallets and the chosen one used; a reload mid-transfer. Every request of every page
 * is recorded, and none may carry a private key or a recovery phrase.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { formatUnits, parseUnits } from 'ethers';
import type { Browser, Page } from 'playwright';
import type { SandboxChain } from '../../sandbox/server.ts';
import { launchChromium } from '../support/browser.ts';
import {
  ANVIL_KEYS,
  bridgePhase,
  bridgeText,
  keyMaterialIn,
  openWalletPage,
  previewField,
  type RecordedRequest,
} from './support/bridge-page.ts';
import { startShopStack, type ShopStack } from '../support/shop-stack.ts';
import { sandboxClient } from '../support/sandbox-client.ts';
import { walletIconUri } from '../support/wallet/wallet-provider.ts';
import { TestWalletHub, type TestWallet, type TestWalletOptions } from '../support/wallet/wallet-signer.ts';

const ONE = 31337;
const TWO = 31338;

describe('e2e: the wallet panel', () => {
  let env: ShopStack;
  let browser: Browser;
  let hub: TestWalletHub;
  let one: SandboxChain;
  let two: SandboxChain;
  const requests: RecordedRequest[] = [];

  before(async () => {
    [env, browser] = await Promise.all([startShopStack(), launchChromium()]);
    hub = new TestWalletHub(env.stack.sandbox.chains);
    [one, two] = [
      env.stack.sandbox.chains.find((chain) => chain.chainId === ONE)!,
      env.stack.sandbox.chains.find((chain) => chain.chainId === TWO)!,
    ];
  });
  after(async () => {
    hub.close();
    await browser.close();
    await env.stop();
  });

  const wallet = (options: Partial<TestWalletOptions> & { id: string; account: number }) =>
    hub.add({
      name: `${options.id[0]!.toUpperCase()}${options.id.slice(1)} Wallet`,
      rdns: `test.kassa.${options.id}`,
      icon: walletIconUri('#0f766e', options.id[0]!.toUpperCase()),
      chainId: ONE,
      ...options,
    });

  const control = (path: string, body: unknown) => sandboxClient(env.stack.sandbox).control(path, body);

  const open = (wallets: TestWallet[], options?: { windowEthereum?: string; announce?: boolean }) =>
    openWalletPage(browser, `${env.shop.origin}/wallet`, hub, wallets, requests, options);

  const balances = async (account: string, symbol: 'eUSD' | 'eEUR' | 'eGBR' | 'eSGD' = 'eUSD') => ({
    one: await hub.tokenBalance(ONE, one.tokens[symbol].address, account),
    two: await hub.tokenBalance(TWO, two.tokens[symbol].address, account),
  });

  /** Connects `chosen` and asks for a transfer of `amount` eUSD from chain `from`, up to the preview. */
  async function reviewTransfer(page: Page, chosen: TestWallet, amount: string, from = ONE) {
    await bridgePhase(page, 'connect');
    await page.getByRole('button', { name: chosen.options.name }).click();
    await bridgePhase(page, 'ready');
    if ((await page.getByLabel('From').inputValue()) !== String(from))
      await page.getByLabel('From').selectOption(String(from));
    await page.getByLabel('Amount').fill(amount);
    await page.getByRole('button', { name: 'Review transfer' }).click();
    await bridgePhase(page, 'review');
  }

  it('moves 12.5 eUSD from Kassa Local One to Kassa Local Two: preview, sign, mined, arrived, with the right balances', async () => {
    const alpha = wallet({ id: 'alpha', account: 1 });
    const initial = await balances(alpha.address);
    const { page, problems, events } = await open([alpha]);
    await bridgePhase(page, 'connect');
    const button = page.getByRole('button', { name: 'Alpha Wallet' });
    assert.match((await button.locator('img').getAttribute('src')) ?? '', /^data:image\/svg\+xml;base64,/);
    await button.click();
    await bridgePhase(page, 'ready');
    assert.match(
      await bridgeText(page, '[part="account"]'),
      new RegExp(`Alpha Wallet ${alpha.address.slice(0, 6)}…${alpha.address.slice(-4)} Copy on Kassa Local One`),
    );
    await page.locator('kassa-bridge [part="balance"]', { hasText: 'Balance: 1,000,000 eUSD' }).waitFor();
    await page.getByLabel('Amount').fill('12.5');
    await page.getByRole('button', { name: 'Review transfer' }).click();
    await bridgePhase(page, 'review');

    assert.equal(await previewField(page, 'burn'), '12.5 eUSD on Kassa Local One');
    assert.equal(await previewField(page, 'mint'), '12.5 eUSD on Kassa Local Two');
    assert.equal(await previewField(page, 'recipient'), `${alpha.address} (your account)`);
    assert.equal(await previewField(page, 'contract'), `${one.tokens.eUSD.address} (eUSD token)`);
    assert.equal(await previewField(page, 'method'), 'reforge(uint256,uint256,address)');
    assert.equal(await previewField(page, 'network'), 'Kassa Local One (chain 31337)');
    assert.match(await previewField(page, 'fee'), /^0\.0\d+ ETH$/);
    const atMost = await page.locator('kassa-bridge [data-field="fee"]').getAttribute('title');
    assert.equal(
      await page.locator('kassa-bridge [data-field="switch"]').count(),
      0,
      'the wallet is on the right chain already',
    );
    assert.equal(
      alpha.calls.filter((call) => call.method === 'eth_sendTransaction').length,
      0,
      'nothing is signed before the user confirms',
    );

    await page.getByRole('button', { name: 'Confirm in wallet' }).click();
    await bridgePhase(page, 'arrived');
    assert.equal(await bridgeText(page, '[part="status"]'), '12.5 eUSD arrived on Kassa Local Two.');
    assert.equal(
      await bridgeText(page, '[data-field="new-balance"]'),
      'Your balance on Kassa Local Two: 1,000,012.5 eUSD',
    );

    const final = await balances(alpha.address);
    const units = parseUnits('12.5', 18);
    assert.equal(initial.one - final.one, units, 'burned on the source chain');
    assert.equal(final.two - initial.two, units, 'arrived on the destination chain');

    const sends = alpha.calls.filter((call) => call.method === 'eth_sendTransaction');
    assert.equal(sends.length, 1);
    const [sent] = sends[0]!.params as Array<Record<string, string>>;
    assert.deepEqual(Object.keys(sent!).sort(), [
      'chainId',
      'data',
      'from',
      'gas',
      'maxFeePerGas',
      'maxPriorityFeePerGas',
      'to',
      'value',
    ]);
    // The fee fields the preview's "at most" was made of: the wallet is asked for exactly that bound.
    assert.equal(atMost, `${formatUnits(BigInt(sent!.gas!) * BigInt(sent!.maxFeePerGas!), 18)} ETH`);
    assert.ok(BigInt(sent!.maxPriorityFeePerGas!) <= BigInt(sent!.maxFeePerGas!));
    assert.equal(sent!.from?.toLowerCase(), alpha.address.toLowerCase());
    assert.equal(sent!.to, one.tokens.eUSD.address);
    assert.equal(sent!.chainId, '0x7a69');
    assert.equal(sent!.value, '0x0');
    assert.equal(
      alpha.calls.some((call) => call.method.startsWith('wallet_')),
      false,
      'no switch needed',
    );

    const seen = await events();
    assert.deepEqual(
      seen.map((event) => event.type),
      ['kassa-bridge-submitted', 'kassa-bridge-mined', 'kassa-bridge-arrived'],
    );
    const [submitted, mined, arrived] = seen.map((event) => event.detail);
    assert.deepEqual(submitted, {
      hash: submitted.hash,
      from: alpha.address,
      sourceChainId: ONE,
      destinationChainId: TWO,
      symbol: 'eUSD',
      amount: '12.5',
    });
    assert.match(submitted.hash, /^0x[0-9a-f]{64}$/);
    assert.equal(await bridgeText(page, '[part="hash"]'), submitted.hash);
    const receipt = await hub.provider(ONE).getTransactionReceipt(submitted.hash);
    assert.equal(receipt?.status, 1);
    assert.equal(mined.blockNumber, receipt.blockNumber);
    assert.match(mined.burnId, /^0x[0-9a-f]{64}$/);
    assert.equal(arrived.burnId, mined.burnId);
    assert.equal(arrived.balance, '1000012.5');
    const mint = await hub.provider(TWO).getTransactionReceipt(arrived.destinationHash);
    assert.equal(mint?.status, 1);
    assert.equal(mint.blockNumber, arrived.destinationBlock);
    assert.deepEqual(problems, []);
    await page.context().close();
  });

  it('a rejected signature (4001) gets its own message, sends nothing, and the transfer can be confirmed again', async () => {
    const bravo = wallet({ id: 'bravo', account: 2, rejectSend: true });
    const nonce = await hub.nonce(ONE, bravo.address);
    const { page, problems, events } = await open([bravo]);
    await reviewTransfer(page, bravo, '3');
    await page.getByRole('button', { name: 'Confirm in wallet' }).click();
    await page
      .locator('kassa-bridge [part="status"]', {
        hasText: 'You rejected the request in your wallet. Nothing was sent.',
      })
      .waitFor();
    assert.equal(await page.locator('kassa-bridge').getAttribute('phase'), 'review');
    assert.equal(await hub.nonce(ONE, bravo.address), nonce, 'no transaction');
    const [rejected] = await events();
    assert.deepEqual(
      { kind: rejected?.detail.kind, stage: rejected?.detail.stage, code: rejected?.detail.code },
      { kind: 'wallet-rejected', stage: 'send', code: 4001 },
    );

    bravo.options.rejectSend = false;
    await page.getByRole('button', { name: 'Confirm in wallet' }).click();
    await bridgePhase(page, 'arrived');
    assert.equal(await hub.nonce(ONE, bravo.address), nonce + 1);
    assert.deepEqual(problems, []);
    await page.context().close();
  });

  it('a wallet on the other chain is switched first; one that does not know the chain adds it (4902), then switches', async () => {
    const charlie = wallet({ id: 'charlie', account: 3, chainId: TWO });
    const first = await open([charlie]);
    await reviewTransfer(first.page, charlie, '2');
    assert.equal(
      await previewField(first.page, 'switch'),
      'Your wallet will be asked to switch to Kassa Local One first.',
    );
    await first.page.getByRole('button', { name: 'Confirm in wallet' }).click();
    await bridgePhase(first.page, 'arrived');
    const methods = charlie.calls.map((call) => call.method);
    const switched = methods.indexOf('wallet_switchEthereumChain');
    assert.ok(switched >= 0 && switched < methods.indexOf('eth_sendTransaction'), methods.join(', '));
    assert.deepEqual(charlie.calls[switched]!.params, [{ chainId: '0x7a69' }]);
    assert.equal(methods.includes('wallet_addEthereumChain'), false);
    assert.match(await bridgeText(first.page, '[part="account"]'), /on Kassa Local One/);
    assert.deepEqual(first.problems, []);
    await first.context.close();

    const delta = wallet({ id: 'delta', account: 4, chainId: TWO, knownChains: [TWO], staysAfterAdd: true });
    const second = await open([delta]);
    await reviewTransfer(second.page, delta, '2');
    await second.page.getByRole('button', { name: 'Confirm in wallet' }).click();
    await bridgePhase(second.page, 'arrived');
    assert.deepEqual(
      delta.calls
        .map((call) => call.method)
        .filter((method) => method.startsWith('wallet_') || method === 'eth_sendTransaction'),
      ['wallet_switchEthereumChain', 'wallet_addEthereumChain', 'wallet_switchEthereumChain', 'eth_sendTransaction'],
    );
    assert.deepEqual(delta.added, [
      {
        chainId: '0x7a69',
        chainName: 'Kassa Local One',
        nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
        rpcUrls: [one.rpcUrl],
      },
    ]);
    assert.deepEqual(second.problems, []);
    await second.context.close();
  });

  it('a wallet that says yes to the switch but stays on the other chain is never asked to sign', async () => {
    const echo = wallet({ id: 'echo', account: 5, chainId: TWO, ignoreSwitch: true });
    const { page, problems, events, context } = await open([echo]);
    await reviewTransfer(page, echo, '1');
    await page.getByRole('button', { name: 'Confirm in wallet' }).click();
    await page
      .locator('kassa-bridge [part="status"]', {
        hasText:
          'Your wallet is still on another network, so nothing was sent. Switch it to Kassa Local One and try again.',
      })
      .waitFor();
    assert.equal(
      echo.calls.some((call) => call.method === 'eth_sendTransaction'),
      false,
    );
    assert.equal((await events()).at(-1)?.detail.kind, 'wrong-chain');
    assert.deepEqual(problems, []);
    await context.close();
  });

  it('two wallets announced: both listed with name and icon, and only the one the user chooses is called', async () => {
    const foxtrot = wallet({ id: 'foxtrot', account: 6 });
    const golf = wallet({ id: 'golf', account: 7 });
    const initial = await balances(golf.address, 'eGBR');
    // foxtrot is window.ethereum too: the panel must still use the wallet the user picked.
    const { page, problems, context } = await open([foxtrot, golf], { windowEthereum: 'foxtrot' });
    await bridgePhase(page, 'connect');
    assert.deepEqual(
      await page
        .locator('kassa-bridge [part="wallet"]')
        .allTextContents()
        .then((names) => names.map((name) => name.trim())),
      ['Foxtrot Wallet', 'Golf Wallet'],
    );
    assert.equal(await page.locator('kassa-bridge [part="wallet"] img').count(), 2);
    await page.getByRole('button', { name: 'Golf Wallet' }).click();
    await bridgePhase(page, 'ready');
    await page.getByLabel('Token').selectOption('eGBR');
    await page.getByLabel('Amount').fill('7.25');
    await page.getByRole('button', { name: 'Review transfer' }).click();
    await bridgePhase(page, 'review');
    assert.equal(await previewField(page, 'recipient'), `${golf.address} (your account)`);
    await page.getByRole('button', { name: 'Confirm in wallet' }).click();
    await bridgePhase(page, 'arrived');
    const final = await balances(golf.address, 'eGBR');
    assert.equal(final.two - initial.two, parseUnits('7.25', 18));
    assert.deepEqual(foxtrot.calls, [], 'the wallet not chosen is never called');
    assert.ok(golf.calls.some((call) => call.method === 'eth_sendTransaction'));
    assert.deepEqual(problems, []);
    await context.close();
  });

  it('a reload while the transfer is under way resumes following it, to arrival', async () => {
    const hotel = wallet({ id: 'hotel', account: 8, send: 'hold' });
    const initial = await balances(hotel.address);
    const { page, problems, events, context } = await open([hotel]);
    await reviewTransfer(page, hotel, '5');
    await page.getByRole('button', { name: 'Confirm in wallet' }).click();
    await bridgePhase(page, 'submitted');
    const hash = await bridgeText(page, '[part="hash"]');
    assert.equal((await events())[0]?.detail.hash, hash);
    assert.equal(
      await page.getByRole('button', { name: 'Transfer under way…' }).getAttribute('aria-disabled'),
      'true',
      'no second send',
    );

    await page.reload();
    await bridgePhase(page, 'submitted');
    assert.equal(await bridgeText(page, '[part="hash"]'), hash, 'the same transfer, resumed');
    // The wallet broadcasts only now: the reloaded page follows it.
    assert.equal(await hotel.release(), hash);
    await bridgePhase(page, 'arrived');
    assert.deepEqual(
      (await events()).map((event) => event.type),
      ['kassa-bridge-mined', 'kassa-bridge-arrived'],
    );
    assert.match(await bridgeText(page, '[part="account"]'), /Hotel Wallet/, 'the wallet reconnected without a prompt');
    assert.equal(hotel.calls.filter((call) => call.method === 'eth_requestAccounts').length, 1);
    const final = await balances(hotel.address);
    assert.equal(final.two - initial.two, parseUnits('5', 18));
    assert.deepEqual(problems, []);
    await context.close();
  });

  it('the arrival shows a receipt; after a reload the history shows the transfer arrived, with both hashes and the balances', async () => {
    const india = wallet({ id: 'india', account: 9 });
    const { page, problems, events, context } = await open([india]);
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    await reviewTransfer(page, india, '4.5');
    await page.getByRole('button', { name: 'Confirm in wallet' }).click();
    await bridgePhase(page, 'arrived');
    const [submitted, , arrived] = (await events()).map((event) => event.detail);
    const after = await balances(india.address);
    const whole = (units: bigint) => new Intl.NumberFormat('en').format(Number(units / 10n ** 17n) / 10);
    await page.locator('kassa-bridge [data-field="source-balance"]').waitFor();
    const receipt = {
      source: await bridgeText(page, '[part="receipt"] [data-field="source-hash"] .hash'),
      destination: await bridgeText(page, '[part="receipt"] [data-field="destination-hash"] .hash'),
      sourceBalance: await bridgeText(page, '[data-field="source-balance"]'),
      destinationBalance: await bridgeText(page, '[data-field="destination-balance"]'),
    };
    assert.deepEqual(receipt, {
      source: submitted.hash,
      destination: arrived.destinationHash,
      sourceBalance: `${whole(after.one)} eUSD`,
      destinationBalance: `${whole(after.two)} eUSD`,
    });
    // The fee: 4 significant digits, the exact figure on hover, and what the chain says was paid.
    const burn = await hub.provider(ONE).getTransactionReceipt(submitted.hash);
    const paid = burn!.gasUsed * burn!.gasPrice;
    const fee = page.locator('kassa-bridge [data-field="paid-fee"]');
    const rounded = new Intl.NumberFormat('en', { maximumSignificantDigits: 4 }).format(
      formatUnits(paid, 18) as Intl.StringNumericLiteral,
    );
    assert.equal((await fee.textContent())!.trim(), `${rounded} ETH`);
    assert.ok(rounded.replace(/^0\.0*/, '').length <= 4, rounded);
    assert.equal(await fee.getAttribute('title'), `${formatUnits(paid, 18)} ETH`);
    // The sandbox lists an explorer for its chains: each transaction's link opens its page there.
    const links = page.locator('kassa-bridge [part="receipt"] a');
    const explorer = env.stack.sandbox.origin + '/explorer';
    assert.deepEqual(await links.evaluateAll((found) => found.map((link) => link.getAttribute('href'))), [
      `${explorer}/${ONE}/tx/${submitted.hash}`,
      `${explorer}/${TWO}/tx/${arrived.destinationHash}`,
    ]);
    const shown = [
      { chainId: ONE, hash: submitted.hash as string, moved: 'Burned 4.5 eUSD', token: one.tokens.eUSD.address },
      {
        chainId: TWO,
        hash: arrived.destinationHash as string,
        moved: 'Minted 4.5 eUSD',
        token: two.tokens.eUSD.address,
      },
    ];
    for (const [index, { chainId, hash, moved, token }] of shown.entries()) {
      const opening = context.waitForEvent('page');
      await links.nth(index).click();
      const tab = await opening;
      await tab.locator('#hash').waitFor();
      const mined = (await hub.provider(chainId).getTransactionReceipt(hash))!;
      assert.deepEqual(
        {
          hash: await tab.locator('#hash').textContent(),
          status: await tab.locator('#status').textContent(),
          block: await tab.locator('#block').textContent(),
          from: await tab.locator('#from').textContent(),
          to: await tab.locator('#to').textContent(),
          moved: await tab.locator('#moves li').textContent(),
        },
        { hash, status: 'Success', block: String(mined.blockNumber), from: mined.from, to: token, moved },
      );
      if (chainId === ONE) assert.equal(mined.from, india.address, 'the burn is the wallet’s own');
      await tab.close();
    }
    await page.getByRole('button', { name: /^Copy Received on Kassa Local Two$/ }).click();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), arrived.destinationHash);
    await page.locator('kassa-bridge .copied', { hasText: 'Copied' }).waitFor();

    await page.reload();
    await bridgePhase(page, 'ready');
    const entry = page.locator(`kassa-bridge [part="history"] li[data-id="${submitted.hash}"]`);
    await entry.waitFor();
    assert.equal(await entry.getAttribute('data-state'), 'arrived');
    assert.match(await entry.innerText(), /4\.5 eUSD · Kassa Local One → Kassa Local Two\s+Arrived/);
    await entry.getByRole('button').click();
    await page.locator('kassa-bridge [part="detail"]').waitFor();
    assert.equal(await bridgeText(page, '[part="detail"] [data-field="source-hash"] .hash'), submitted.hash);
    assert.equal(
      await bridgeText(page, '[part="detail"] [data-field="destination-hash"] .hash'),
      arrived.destinationHash,
    );
    assert.equal(await bridgeText(page, '[part="detail"] [data-field="source-balance"]'), receipt.sourceBalance);
    assert.equal(
      await bridgeText(page, '[part="detail"] [data-field="destination-balance"]'),
      receipt.destinationBalance,
    );
    await page.getByRole('button', { name: 'Back' }).click();
    await page.locator('kassa-bridge #amount').waitFor();
    assert.deepEqual(problems, []);
    await context.close();
  });

  /** Transfers `amount` eUSD from chain one with the destination's relayer held, the panel calling it delayed after 1 s. */
  async function heldTransfer(chosen: TestWallet, amount: string) {
    const opened = await open([chosen]);
    await opened.page.locator('kassa-bridge').evaluate((panel: HTMLElement & { timeouts: object }) => {
      panel.timeouts = { delayed: 1_000 };
    });
    await control('/relayer/hold', { chainId: TWO });
    await reviewTransfer(opened.page, chosen, amount);
    await opened.page.getByRole('button', { name: 'Confirm in wallet' }).click();
    await bridgePhase(opened.page, 'delayed');
    assert.match(
      await bridgeText(opened.page, '[part="status"]'),
      /^This is taking longer than usual\. Your tokens are safe: they arrive on Kassa Local Two, or the bridge refunds them to you on Kassa Local One\./,
    );
    const seen = await opened.events();
    assert.deepEqual(
      seen.map((event) => event.type),
      ['kassa-bridge-submitted', 'kassa-bridge-mined', 'kassa-bridge-delayed'],
    );
    const delayed = seen[2]!.detail;
    assert.equal(delayed.burnId, seen[1]!.detail.burnId);
    assert.ok(delayed.waited >= 1_000, String(delayed.waited));
    return { ...opened, burnId: delayed.burnId as string, hash: delayed.hash as string };
  }

  it('a held relayer makes the transfer delayed (kept so in the history across a reload); released, it arrives', async () => {
    const juliet = wallet({ id: 'juliet', account: 5 });
    const initial = await balances(juliet.address);
    try {
      const { page, problems, context, events, hash } = await heldTransfer(juliet, '6');
      await page.reload();
      await bridgePhase(page, 'delayed');
      assert.equal(await bridgeText(page, '[part="hash"]'), hash, 'the same transfer, followed again');
      await control('/relayer/release', { chainId: TWO });
      await bridgePhase(page, 'arrived');
      assert.deepEqual(
        (await events()).map((event) => event.type),
        ['kassa-bridge-arrived'],
      );
      assert.equal((await balances(juliet.address)).two - initial.two, parseUnits('6', 18));
      await page.getByRole('button', { name: 'New transfer' }).click();
      const entry = page.locator(`kassa-bridge [part="history"] li[data-id="${hash}"]`);
      await entry.and(page.locator('[data-state="arrived"]')).waitFor();
      assert.deepEqual(problems, []);
      await context.close();
    } finally {
      await control('/relayer/release', { chainId: TWO });
    }
  });

  it('a forced refund makes the held transfer refunded, with the refund transaction', async () => {
    const kilo = wallet({ id: 'kilo', account: 6 });
    const initial = await balances(kilo.address);
    try {
      const { page, problems, context, events, burnId, hash } = await heldTransfer(kilo, '8');
      assert.equal((await control('/relayer/refund', { burnId })).status, 200);
      await bridgePhase(page, 'refunded');
      assert.equal(
        await bridgeText(page, '[part="status"]'),
        'The bridge could not deliver to Kassa Local Two and refunded 8 eUSD to you on Kassa Local One.',
      );
      const refunded = (await events()).at(-1)!;
      assert.equal(refunded.type, 'kassa-bridge-refunded');
      assert.equal(refunded.detail.burnId, burnId);
      const refund = await hub.provider(ONE).getTransactionReceipt(refunded.detail.refundHash);
      assert.equal(refund?.status, 1);
      assert.equal(refunded.detail.refundBlock, refund.blockNumber);
      assert.equal(await bridgeText(page, '[data-field="refund-hash"] .hash'), refunded.detail.refundHash);
      assert.equal(await bridgeText(page, '[data-field="source-hash"] .hash'), hash);
      assert.equal(await page.locator('kassa-bridge [data-field="destination-hash"]').count(), 0);
      const final = await balances(kilo.address);
      assert.equal(final.one, initial.one, 'all back on the source chain');
      assert.equal(final.two, initial.two, 'nothing arrived');
      assert.equal(refunded.detail.balance, formatUnits(final.one, 18).replace(/\.0$/, ''));
      await control('/relayer/release', { chainId: TWO });
      await page.reload();
      const entry = page.locator(`kassa-bridge [part="history"] li[data-id="${hash}"]`);
      await entry.waitFor();
      assert.equal(await entry.getAttribute('data-state'), 'refunded');
      await entry.getByRole('button').click();
      assert.equal(
        await bridgeText(page, '[part="detail"] [data-field="refund-hash"] .hash'),
        refunded.detail.refundHash,
      );
      assert.deepEqual(problems, []);
      await context.close();
    } finally {
      await control('/relayer/release', { chainId: TWO });
    }
  });

  it('first run without a wallet: the chains and tokens, what a wallet is, the help link; a wallet announcing itself later connects without a reload', async () => {
    const lima = wallet({ id: 'lima', account: 7 });
    const { page, problems, context } = await open([lima], { announce: false });
    await bridgePhase(page, 'connect');
    await page.locator('kassa-bridge [part="first-run"]').waitFor();
    assert.equal(
      await bridgeText(page, '[data-field="offered"]'),
      'Move eUSD, eEUR, eGBR, and eSGD between Kassa Local One and Kassa Local Two.',
    );
    assert.match(await bridgeText(page, '[part="first-run"]'), /What is a wallet\? A wallet is an app/);
    const help = page.getByRole('link', { name: 'How to get a wallet' });
    assert.equal(await help.getAttribute('href'), `${env.shop.origin}/wallet/extension`);
    const steps = await (await fetch(`${env.shop.origin}/wallet/extension`)).text();
    assert.match(steps, /Load unpacked/);
    assert.match(steps, /dist\/extension\//);
    // "Look again" asks the wallets once more; still none.
    await page.getByRole('button', { name: 'Look for wallets again' }).click();
    await page.locator('kassa-bridge [part="first-run"]').waitFor();

    await page.evaluate(() =>
      (
        window as unknown as { kassaTestWallets: Record<string, { announce(): void }> }
      ).kassaTestWallets.lima!.announce(),
    );
    await page.getByRole('button', { name: 'Lima Wallet' }).click();
    await bridgePhase(page, 'ready');
    assert.equal(await page.locator('kassa-bridge [part="first-run"]').count(), 0);
    assert.deepEqual(problems, []);
    await context.close();
  });

  it('no request of any page carried a private key or a recovery phrase', () => {
    assert.ok(
      requests.some((request) => request.url.endsWith('/api/bridge/prepare') && request.postData),
      'the prepare requests were recorded',
    );
    assert.ok(
      requests.some(
        (request) => request.url.startsWith(one.rpcUrl) && request.postData?.includes('eth_getTransactionReceipt'),
      ),
      'the chain RPC requests were recorded',
    );
    assert.deepEqual(requests.map((request) => keyMaterialIn(request)).filter(Boolean), []);
    // The check itself finds key material where there is some.
    assert.ok(
      keyMaterialIn({
        url: 'http://x/',
        method: 'POST',
        headers: {},
        postData: JSON.stringify({ key: `0x${ANVIL_KEYS[1]!.toUpperCase()}` }),
      }),
    );
    assert.ok(
      keyMaterialIn({
        url: 'http://x/?words=legal%20winner%20thank%20year%20wave%20sausage%20worth%20useful%20legal%20winner%20thank%20yellow',
        method: 'GET',
        headers: {},
        postData: null,
      }),
    );
  });
});
