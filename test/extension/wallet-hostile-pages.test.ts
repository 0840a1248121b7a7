/**
 * Kassa's wallet against hostile pages (issue 26), in real Chromium with the built extension, against
 * a real proxy and the emulator's anvil chains. The sites are loopback servers under several names
 * (shop.localhost, evil.localhost, a.evil.localhost…, each an origin of its own; shop.test for a
 * plain-http page that is not a secure context). What a page must not get, it asks for and is refused:
 * fees above Kassa's ceiling, calldata with hidden bytes, chain switches while not connected or that
 * cancel another site's approval, a provider in a sandboxed document, a flood of approval windows,
 * clicks on a window that just opened.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { formatUnits, toQuantity, Transaction } from 'ethers';
import type { Page } from 'playwright';
import { feeCeiling, readChainFees, suggestedFees } from '../../lib/fee-policy.ts';
import { anvilAccount, chainProviders, waitUntil } from '../support/chains.ts';
import {
  approvalWindow,
  configure,
  connectDapp,
  discoverKassa,
  importVaultKey,
  launchExtension,
  openDapp,
  press,
  providerCall as call,
  refusedWithoutWindow,
  type LoadedExtension,
} from '../support/extension.ts';
import { HOST_RULES, startSites, type Sites } from '../support/sites.ts';
import { SHOP_ORIGIN, startStack, type Stack } from '../support/stack.ts';
import { PATIENCE_MS } from '../support/patience.ts';
import { armedAfter, armingSteps, armingTimeline, extensionWithArmingProbe } from '../support/wallet/arming-probe.ts';

const PASSWORD = 'a long enough password';
const ACCOUNT = anvilAccount(3);
const ONE = 31337;
const TWO = 31338;
const SANDBOXED = { body: '<!doctype html><title>Sandboxed</title><p>Served with CSP sandbox.</p>' };

/** The approval windows open now. */
const openWindows = (extension: LoadedExtension) =>
  extension.context.pages().filter((page) => page.url().includes('/ui/approval.html') && !page.isClosed());

/** A field of the approval window's transfer preview, as the user reads it. */
const shown = async (approval: Page, selector: string) =>
  ((await approval.locator(selector).first().textContent()) ?? '').replace(/\s+/g, ' ').trim();

describe('extension: the wallet against hostile pages', () => {
  let sites: Sites;
  let stack: Stack;
  let extension: LoadedExtension;
  let probed: ReturnType<typeof extensionWithArmingProbe>;
  let chains: ReturnType<typeof chainProviders>;
  let shop: Page;
  let friend: Page;

  const site = (host: string, path = '/') => `${sites.origin(host)}${path}`;
  /** A transfer of `amount` eUSD from chain one to two, prepared by the proxy, as a page sends it. */
  const transfer = async (amount: string) => {
    const [one, two] = stack.sandbox.chains;
    const response = await stack.browser('/api/bridge/prepare', {
      body: {
        sourceAmount: amount,
        sourceToken: one!.tokens.eUSD.address,
        destinationToken: two!.tokens.eUSD.address,
        destinationChainId: two!.chainId,
      },
    });
    assert.equal(response.status, 200, response.text);
    const prepared = Transaction.from((response.body as { tx: string }).tx);
    const fields = {
      from: ACCOUNT.address,
      to: prepared.to!,
      data: prepared.data,
      value: '0x0',
      gas: toQuantity(prepared.gasLimit),
      chainId: toQuantity(prepared.chainId),
    };
    return { prepared, fields, params: [fields] };
  };
  /** The wallet back on chain one (a connected site moves it), whatever a test before left. */
  const onChainOne = async () =>
    assert.deepEqual(await call(friend, 'wallet_switchEthereumChain', [{ chainId: toQuantity(ONE) }]), {
      result: null,
    });
  /** The chain's fees now, read as Kassa reads them. */
  const chainFees = (chainId: number) =>
    readChainFees((method, params) => chains.get(chainId).send(method, params) as Promise<unknown>);

  before(async () => {
    sites = await startSites({
      '/sandboxed': { ...SANDBOXED, headers: { 'Content-Security-Policy': 'sandbox allow-scripts' } },
    });
    stack = await startStack({
      env: { KASSA_ALLOWED_ORIGINS: [SHOP_ORIGIN, sites.origin('wallets.localhost')].join(',') },
    });
    chains = chainProviders(stack.sandbox.chains);
    // The approval page also records when Connect shows and arms; nothing else differs (arming-probe.ts).
    probed = extensionWithArmingProbe();
    extension = await launchExtension({ dir: probed.dir, args: [HOST_RULES] });
    await configure(extension, stack.proxy.origin);
    await importVaultKey(extension, ACCOUNT, PASSWORD);
    shop = await openDapp(extension, site('shop.localhost'));
    await connectDapp(extension, shop);
    friend = await openDapp(extension, site('friend.localhost'));
    await connectDapp(extension, friend);
  });
  // A test that fails with a window open must not leave the next one's requests queued behind it.
  afterEach(async () => {
    // Closing one lets the next in line open: close until none is left for a while.
    for (let quiet = 0; quiet < 3;) {
      const open = openWindows(extension);
      quiet = open.length ? 0 : quiet + 1;
      for (const approval of open) await approval.close().catch(() => undefined);
      await new Promise((resolve) => setTimeout(resolve, 300));
    }
  });
  after(async () => {
    chains?.destroy();
    await extension?.dispose();
    probed?.remove();
    await stack?.stop();
    await sites?.close();
  });

  it('a plain-http page, not a secure context, gets Kassa: EIP-6963, window.ethereum, answers (defect 10)', async () => {
    const page = await extension.context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.addInitScript(discoverKassa);
    await page.goto(site('shop.test'));
    assert.equal(await page.evaluate(() => isSecureContext), false, 'http://shop.test is not a secure context');
    await page
      .waitForFunction(() => Boolean((window as { kassa?: unknown }).kassa), undefined, { timeout: PATIENCE_MS })
      .catch(() => undefined);
    const seen = await page.evaluate(() => ({
      kassa: (window as unknown as { announced: Array<{ info: { rdns: string; uuid: string } }> }).announced
        .filter((entry) => entry.info.rdns === 'dev.kassa.wallet')
        .map((entry) => entry.info.uuid),
      ethereum:
        Boolean((window as { kassa?: unknown }).kassa) &&
        (window as { ethereum?: unknown }).ethereum === (window as { kassa?: unknown }).kassa,
    }));
    assert.deepEqual(errors, [], 'no script error in the page');
    assert.equal(seen.kassa.length, 1, 'Kassa announced itself');
    assert.match(seen.kassa[0]!, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.equal(seen.ethereum, true);
    assert.deepEqual(await call(page, 'eth_chainId'), { result: toQuantity(ONE) });
    await page.close();
  });

  it('a sandboxed document of a connected site gets no provider and raises no approval (defect 5)', async () => {
    const opened: Page[] = [];
    const count = (page: Page) => page.url().includes('/ui/approval.html') && opened.push(page);
    extension.context.on('page', count);
    const sandboxed = await extension.context.newPage();
    await sandboxed.addInitScript(discoverKassa);
    await sandboxed.goto(site('shop.localhost', '/sandboxed'));
    assert.equal(await sandboxed.evaluate(() => self.origin), 'null', 'an opaque origin');
    const seven = await transfer('7');
    const two = await transfer('2');
    // Raw messages to the content script: the sandboxed document's 7 eUSD, then the shop's own 2 eUSD.
    const raw = (page: Page, id: string, params: unknown) =>
      page.evaluate(
        ([id, params]) =>
          window.postMessage({ target: 'kassa:content', id, method: 'eth_sendTransaction', params }, '*'),
        [id, params] as const,
      );
    await raw(sandboxed, 'raw-1', seven.params);
    const opening = approvalWindow(extension);
    await raw(shop, 'raw-2', two.params);
    const approval = await opening;
    assert.equal(await shown(approval, '[data-field=burn]'), '2 eUSD on Kassa Local One', 'the shop’s own request');
    await press(approval, 'Reject');
    await sandboxed.waitForTimeout(2_000);
    extension.context.off('page', count);
    assert.equal(opened.length, 1, 'no window for the sandboxed document');
    assert.equal(
      await sandboxed.evaluate(
        () => (window as { ethereum?: unknown }).ethereum === undefined && !(window as { kassa?: unknown }).kassa,
      ),
      true,
      'no provider in the sandboxed document',
    );
    await sandboxed.close();
  });

  it('only a connected site switches chains, and no switch cancels another site’s approval (defect 4)', async () => {
    const { params } = await transfer('1');
    const opening = approvalWindow(extension);
    const sent = call(shop, 'eth_sendTransaction', params);
    const approval = await opening;
    await approval.getByRole('heading', { name: 'Approve this transfer?' }).waitFor();
    assert.equal(await shown(approval, '[data-field=network]'), 'Kassa Local One (chain 31337)');

    const stranger = await openDapp(extension, site('evil.localhost'));
    const refused = await call(stranger, 'wallet_switchEthereumChain', [{ chainId: toQuantity(TWO) }]);
    assert.equal(refused.error?.code, 4100, JSON.stringify(refused));
    assert.match(refused.error.message, /not connected/);
    const added = await call(stranger, 'wallet_addEthereumChain', [{ chainId: toQuantity(TWO), chainName: 'Two' }]);
    assert.equal(added.error?.code, 4100);
    assert.deepEqual(await call(shop, 'eth_chainId'), { result: toQuantity(ONE) }, 'the wallet did not move');

    // A connected site may switch; the shop's transfer still waits, for the chain its window shows.
    assert.deepEqual(await call(friend, 'wallet_switchEthereumChain', [{ chainId: toQuantity(TWO) }]), {
      result: null,
    });
    assert.deepEqual(await call(shop, 'eth_chainId'), { result: toQuantity(TWO) });
    await shop.waitForTimeout(500);
    assert.equal(approval.isClosed(), false, 'the shop’s approval window is still open');
    await press(approval, 'Approve');
    const hash = (await sent).result as string;
    assert.match(hash, /^0x[0-9a-f]{64}$/, JSON.stringify(await sent));
    const mined = await waitUntil(
      () => chains.get(ONE).getTransaction(hash),
      (tx) => tx?.blockNumber != null,
      'mined',
    );
    assert.equal(mined!.chainId, BigInt(ONE), 'signed for the chain its window showed');
    assert.deepEqual(await call(friend, 'wallet_switchEthereumChain', [{ chainId: toQuantity(ONE) }]), {
      result: null,
    });
    await stranger.close();
  });

  it('fees: Kassa’s own from the chain; a page’s above the ceiling refused; high ones warned about (defect 1)', async () => {
    await onChainOne();
    // Someone pays a million gwei of tip once: anvil's own suggestion follows it, Kassa's must not.
    const whale = anvilAccount(9, chains.get(ONE));
    const outlier = await whale.sendTransaction({
      to: whale.address,
      maxFeePerGas: 10n ** 15n,
      maxPriorityFeePerGas: 10n ** 15n,
      gasLimit: 21_000n,
    });
    await outlier.wait();
    assert.ok(
      BigInt(await chains.get(ONE).send('eth_maxPriorityFeePerGas', [])) > 10n ** 14n,
      'the node’s suggestion moved',
    );

    // No fee fields: Kassa's own fee, shown in the window, and exactly what is signed.
    let { params, fields } = await transfer('1');
    let opening = approvalWindow(extension);
    let sent = call(shop, 'eth_sendTransaction', params);
    let approval = await opening;
    const fee = await approval.locator('[data-field=fee]').getAttribute('title');
    assert.equal(await approval.locator('[data-field=fee-warning]').count(), 0, 'no warning for Kassa’s own fee');
    await press(approval, 'Approve');
    let hash = (await sent).result as string;
    let mined = await waitUntil(
      () => chains.get(ONE).getTransaction(hash),
      (tx) => tx?.blockNumber != null,
      'mined',
    );
    assert.equal(
      fee,
      `${formatUnits(mined!.gasLimit * mined!.maxFeePerGas!, 18)} ETH`,
      'the fee shown is the fee signed',
    );
    assert.ok(mined!.maxPriorityFeePerGas! < 10n ** 11n, `a sane tip: ${mined!.maxPriorityFeePerGas}`);
    assert.ok(mined!.gasLimit * mined!.maxFeePerGas! < 10n ** 15n, `at most 0.001 ETH: ${fee}`);

    // A page's million gwei: refused before any window, saying why.
    const greedy = await refusedWithoutWindow(extension, shop, 'eth_sendTransaction', [
      { ...fields, maxFeePerGas: toQuantity(10n ** 15n), maxPriorityFeePerGas: toQuantity(10n ** 15n) },
    ]);
    assert.equal(greedy.code, 4200);
    assert.match(
      greedy.message,
      /The fee asked \(1000000 gwei per gas\) is above Kassa's ceiling on Kassa Local One now/,
    );

    // Within the ceiling but well above Kassa's own: honoured, with a plain warning in the window.
    const now = await chainFees(ONE);
    const high = (feeCeiling(now).maxFeePerGas + (suggestedFees(now).maxFeePerGas * 3n) / 2n) / 2n;
    ({ params, fields } = await transfer('1'));
    opening = approvalWindow(extension);
    sent = call(shop, 'eth_sendTransaction', [
      { ...fields, maxFeePerGas: toQuantity(high), maxPriorityFeePerGas: toQuantity(now.priorityFeePerGas) },
    ]);
    approval = await opening;
    assert.match(
      await shown(approval, '[data-field=fee-warning]'),
      /^This fee is unusually high: Kassa would pay at most .+ ETH on this chain now\./,
    );
    await press(approval, 'Approve');
    hash = (await sent).result as string;
    mined = await waitUntil(
      () => chains.get(ONE).getTransaction(hash),
      (tx) => tx?.blockNumber != null,
      'mined',
    );
    assert.equal(mined!.maxFeePerGas, high, 'the page’s fee, within the ceiling, is honoured');
  });

  it('calldata with bytes after the transfer’s arguments is refused before any window (defect 10)', async () => {
    await onChainOne();
    const { fields } = await transfer('1');
    for (const data of [`${fields.data}deadbeef`, `${fields.data}${'00'.repeat(32)}`]) {
      const refused = await refusedWithoutWindow(extension, shop, 'eth_sendTransaction', [{ ...fields, data }]);
      assert.equal(refused.code, 4200);
      assert.match(
        refused.message,
        /Kassa signs only Kassa transfers: The reforge call carries bytes beyond its arguments/,
      );
    }
  });

  describe('approval windows (defect 6)', () => {
    it('Connect answers only once the request has been on screen, focused, for 500 ms or more', async () => {
      // The approval window's timeline from its first script: the focus and blur events, and when
      // Connect is put on screen, enabled and disabled, as the DOM changes (a MutationObserver's record
      // is taken in the task that rendered it).
      const page = await openDapp(extension, site('hasty.localhost'));
      const opening = approvalWindow(extension);
      const asked = call(page, 'eth_requestAccounts');
      const approval = await opening;
      // The person looks at the window (on a busy machine another window may have taken the focus).
      await approval.bringToFront();
      const { reached, count } = armingSteps(approval);
      await reached('enabled', 1);
      // Losing the focus disarms it; getting it back arms it again, after the same wait.
      const [disabled, enabled] = [await count('disabled'), await count('enabled')];
      await approval.evaluate(() => window.dispatchEvent(new Event('blur')));
      await reached('disabled', disabled + 1);
      await approval.evaluate(() => window.dispatchEvent(new Event('focus')));
      await reached('enabled', enabled + 1);
      const timeline = await armingTimeline(approval);
      const steps = timeline.map((step) => step.what).filter((what) => what !== 'focus');
      assert.deepEqual(steps.slice(0, 3), ['shown', 'disabled', 'enabled'], 'Connect showed disabled, then armed');
      assert.deepEqual(steps.slice(steps.lastIndexOf('blur')), ['blur', 'disabled', 'enabled'], 'the blur disarmed it');
      for (const wait of armedAfter(timeline))
        assert.ok(wait >= 500, `enabled ${Math.round(wait)} ms after it showed, focused: ${JSON.stringify(timeline)}`);
      await press(approval, 'Reject');
      assert.equal((await asked).error?.code, 4001);
      await page.close();
    });

    it('a site that asks again after each rejection is paused after the third (4100, no window)', async () => {
      const page = await openDapp(extension, site('evil.localhost'));
      const loop = page.evaluate(async () => {
        const provider = (window as unknown as { kassa: { request(args: unknown): Promise<unknown> } }).kassa;
        const codes: Array<number | string> = [];
        for (let attempt = 0; attempt < 6; attempt++) {
          try {
            await provider.request({ method: 'eth_requestAccounts' });
            codes.push('granted');
            break;
          } catch (error) {
            codes.push((error as { code: number }).code);
            if ((error as { code: number }).code !== 4001) break;
          }
        }
        return codes;
      });
      const done = loop.then(() => 'done' as const);
      let windows = 0;
      for (;;) {
        const next = await Promise.race([approvalWindow(extension).catch(() => 'none' as const), done]);
        if (next === 'done') break;
        if (next === 'none') assert.fail('the site’s request got neither a window nor an answer');
        windows += 1;
        await press(next, 'Reject');
      }
      assert.deepEqual(await loop, [4001, 4001, 4001, 4100]);
      assert.equal(windows, 3);
      const paused = await refusedWithoutWindow(extension, page, 'eth_requestAccounts');
      assert.match(paused.message, /rejected this site's requests several times: Kassa refuses them for \d+ s/);
      await page.close();
    });

    it('five subdomains asking at once get one window at a time, in turn', async () => {
      const pages = await Promise.all(
        ['a', 'b', 'c', 'd', 'e'].map((name) => openDapp(extension, site(`${name}.flood.localhost`))),
      );
      const opening = approvalWindow(extension);
      const asked = pages.map((page) => call(page, 'eth_requestAccounts'));
      let approval = await opening;
      const seen: string[] = [];
      for (let turn = 0; turn < 5; turn++) {
        await approval.locator('#origin').waitFor();
        await approval.waitForTimeout(300);
        assert.equal(openWindows(extension).length, 1, `one window at a time (turn ${turn + 1})`);
        seen.push(await shown(approval, '#origin'));
        // The count follows the line as the requests arrive.
        if (turn < 4)
          await approval
            .locator('#queued')
            .filter({ hasText: `${4 - turn} more requests wait after this one.` })
            .waitFor();
        else assert.equal(await approval.locator('#queued').count(), 0);
        const next = turn < 4 ? approvalWindow(extension) : undefined;
        await press(approval, 'Reject');
        if (next) approval = await next;
      }
      assert.deepEqual(
        seen.sort(),
        ['a', 'b', 'c', 'd', 'e'].map((name) => site(`${name}.flood.localhost`).replace(/\/$/, '')),
      );
      for (const answer of await Promise.all(asked)) assert.equal(answer.error?.code, 4001);
      await Promise.all(pages.map((page) => page.close()));
    });

    it('a site rejected before can be blocked from its window, and unblocked in the Wallet tab', async () => {
      const page = await openDapp(extension, site('pest.localhost'));
      const origin = sites.origin('pest.localhost');
      let opening = approvalWindow(extension);
      let asked = call(page, 'eth_requestAccounts');
      let approval = await opening;
      await approval.getByRole('button', { name: 'Connect' }).waitFor();
      assert.equal(await approval.getByRole('button', { name: 'Reject and block this site' }).count(), 0);
      await press(approval, 'Reject');
      assert.equal((await asked).error?.code, 4001);

      opening = approvalWindow(extension);
      asked = call(page, 'eth_requestAccounts');
      approval = await opening;
      await press(approval, 'Reject and block this site');
      assert.equal((await asked).error?.code, 4001);
      const blocked = await refusedWithoutWindow(extension, page, 'eth_requestAccounts');
      assert.equal(blocked.code, 4100);
      assert.match(blocked.message, /blocked in Kassa/);

      const wallet = await extension.openPage('ui/popup.html?tab=wallet');
      await wallet.getByRole('heading', { name: 'Blocked sites' }).waitFor();
      await wallet.getByRole('button', { name: `Unblock ${origin}` }).click();
      await wallet.getByRole('heading', { name: 'Blocked sites' }).waitFor({ state: 'detached' });
      opening = approvalWindow(extension);
      asked = call(page, 'eth_requestAccounts');
      await press(await opening, 'Reject');
      assert.equal((await asked).error?.code, 4001, 'it may ask again');
      await wallet.close();
      await page.close();
    });
  });

  it('two wallets announcing the same name and icon are told apart in the panel by their rdns (defect 10)', async () => {
    const page = await extension.context.newPage();
    // A page (or another extension) announcing itself with Kassa's own name and icon.
    await page.addInitScript({
      content: `(() => {
        window.addEventListener('eip6963:announceProvider', (event) => {
          const { info } = event.detail;
          if (info.rdns !== 'dev.kassa.wallet' || window.lookalike) return;
          const provider = { request: async () => { throw Object.assign(new Error('no'), { code: 4001 }); }, on() {}, removeListener() {} };
          window.lookalike = Object.freeze({ info: Object.freeze({ uuid: '9d4cbb1c-5ea6-4d8e-9f3e-2b1d1e1f0a01', name: info.name, icon: info.icon, rdns: 'com.example.lookalike' }), provider });
          const announce = () => window.dispatchEvent(new CustomEvent('eip6963:announceProvider', { detail: window.lookalike }));
          window.addEventListener('eip6963:requestProvider', announce);
          announce();
        });
      })();`,
    });
    await page.goto(site('wallets.localhost'));
    await page.evaluate(
      ([proxy]) => {
        const script = document.createElement('script');
        script.type = 'module';
        script.src = `${proxy}/kassa.js`;
        document.head.append(script);
        const panel = document.createElement('kassa-bridge');
        panel.setAttribute('proxy', proxy!);
        document.body.append(panel);
      },
      [stack.proxy.origin],
    );
    const buttons = page.locator('kassa-bridge').getByRole('list', { name: 'Wallets' }).getByRole('button');
    await waitUntil(
      () => buttons.count(),
      (count) => count === 2,
      'both wallets listed',
    );
    const labels = (await buttons.allInnerTexts()).map((label) => label.replace(/\s+/g, ' ').trim()).sort();
    assert.deepEqual(labels, ['Kassa com.example.lookalike', 'Kassa dev.kassa.wallet']);
    const icons = await buttons
      .locator('img')
      .evaluateAll((images) => images.map((image) => image.getAttribute('src')));
    assert.equal(icons[0], icons[1], 'the same icon: only the rdns tells them apart');
    await page.close();
  });
});
