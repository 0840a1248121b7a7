/**
 * Kassa's extension against what a proxy, or a setting, can do to it (issue 26), in real Chromium with
 * the built extension, a real proxy and the emulator's chains, and a hostile proxy of our own on
 * loopback: the wallet works without an operator's sign-in and never sends a token; the device token
 * one proxy issued never reaches another; the idle lock is not held off by the Wallet tab's polling; the wallet
 * panel's "at most" is what Kassa signs, whatever fee a tampering proxy suggests; and values a proxy
 * returns (a right-to-left override, 2,000 characters) cannot reorder or overflow the operator views.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { formatUnits, toQuantity, Transaction } from 'ethers';
import type { Page } from 'playwright';
import { anvilAccount, chainProviders } from '../support/chains.ts';
import {
  approvalWindow,
  configure,
  connectDapp,
  deviceTokenOf,
  importVaultKey,
  launchExtension,
  openDapp,
  overflowing,
  press,
  providerCall as call,
  signIn,
  startSignIn,
  type LoadedExtension,
} from '../support/extension.ts';
import { startSites, type Sites } from '../support/sites.ts';
import { eventually, SHOP_ORIGIN, startStack, type Stack } from '../support/stack.ts';
import { tamperingProxy, TAMPERED_FEE } from '../support/wallet/wallet-commands.ts';
import { PATIENCE_MS } from '../support/patience.ts';

const PASSWORD = 'a long enough password';
const ACCOUNT = anvilAccount(4);
const TWO = 31338;
const RLO = '\u202e';
const LONG = 'W'.repeat(2_000);
const HOSTILE_TOKEN = 'kassa_dev_issued_by_the_hostile_proxy_0123456789';

interface Heard {
  method: string;
  path: string;
  authorization: string | undefined;
}

/**
 * A hostile proxy: it records what it is sent (the Authorization header above all), lends the real
 * proxy's chain listing, and answers the operator views with an order and an unverifiable payment
 * whose names carry a right-to-left override and values 2,000 characters long.
 */
async function hostileProxy(real: string): Promise<{ origin: string; heard: Heard[]; server: Server }> {
  const heard: Heard[] = [];
  const payment = {
    transactionId: `tx-${LONG}`,
    status: 'PENDING',
    networkStatus: null,
    amount: '12.50',
    currencyCode: 'EUR',
    reference: `${RLO}evil-ref`,
    environment: 'sandbox',
    checkoutId: null,
    retryable: false,
    initiatedAt: '2026-01-02T10:00:00.000Z',
    updatedAt: '2026-01-02T10:00:00.000Z',
    completedAt: null,
    providerId: null,
    bankName: null,
    networkPaymentId: null,
    endToEndId: null,
    paymentRail: null,
    lastCheckedAt: null,
  };
  const answers: Record<string, unknown> = {
    '/api/orders': [
      {
        orderId: 'order-1',
        customerName: `${RLO}evil`,
        customerOrder: LONG,
        stableCoin: 'eUSD',
        amount: '5',
        mintWallet: ACCOUNT.address,
        chainId: 31337,
        orderDate: 1_767_348_000_000,
        orderStatus: 'New',
        lastUpdateTime: 1_767_348_000_000,
      },
    ],
    '/api/payments/unverifiable': {
      payments: [{ payment, reason: `key revoked ${LONG}`, since: '2026-01-02T10:00:00.000Z', lastWebhook: null }],
    },
    '/api/payments': { payments: [], nextCursor: null },
    // Its own device sign-in, approved at once: the operator views then ask it as that device.
    '/operator/device/code': {
      device_code: 'hostile-device-code',
      user_code: 'BCDF-GHJK',
      verification_uri: `${real}/operator/device`,
      verification_uri_complete: `${real}/operator/device?user_code=BCDF-GHJK`,
      expires_in: 600,
      interval: 1,
    },
    '/operator/device/token': {
      access_token: HOSTILE_TOKEN,
      token_type: 'Bearer',
      expires_in: 86_400,
      operator: { name: 'Hostile Admin', email: 'admin@hostile.test', role: 'admin' },
    },
    '/api/operator/me': {
      operatorId: 'op_hostile',
      name: 'Hostile Admin',
      email: 'admin@hostile.test',
      role: 'admin',
      permissions: ['payments:read', 'orders:read', 'orders:write', 'payments:resolve'],
      credential: {
        credentialId: 'cred_hostile',
        kind: 'device',
        name: null,
        expiresAt: '2099-01-01T00:00:00.000Z',
        idleExpiresAt: null,
      },
      csrfToken: null,
    },
  };
  const answer = async (request: IncomingMessage, response: ServerResponse) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    heard.push({ method: request.method ?? 'GET', path, authorization: request.headers.authorization });
    if (path === '/api/bridge/chains') {
      const listing = await fetch(`${real}${request.url}`);
      return response.writeHead(listing.status, { 'Content-Type': 'application/json' }).end(await listing.text());
    }
    const body = answers[path];
    if (body === undefined)
      return response.writeHead(404, { 'Content-Type': 'application/json' }).end('{"error":"no"}');
    response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
  };
  const server = createServer((request, response) => void answer(request, response).catch(() => response.destroy()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, heard, server };
}

/** Where the first occurrence of `text` starts, on screen, in the element `selector` picks (through shadow roots). */
async function leftOf(page: Page, selector: string, text: string): Promise<number> {
  return page
    .locator(selector)
    .first()
    .evaluate((element, text) => {
      const walker = document.createTreeWalker(element, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const at = node.textContent!.indexOf(text);
        if (at === -1) continue;
        const range = document.createRange();
        range.setStart(node, at);
        range.setEnd(node, at + 1);
        return range.getBoundingClientRect().left;
      }
      throw new Error(`${text} is not in ${element.outerHTML.slice(0, 200)}`);
    }, text);
}

describe('extension: the wallet and the operator views against a hostile proxy', () => {
  let sites: Sites;
  let stack: Stack;
  let extension: LoadedExtension;
  let chains: ReturnType<typeof chainProviders>;
  let hostile: Awaited<ReturnType<typeof hostileProxy>>;
  let tampering: Server;
  let shop: Page;

  const fromWorkerTo = (origin: string) =>
    extension.requests.filter((request) => request.from === 'service worker' && request.url.startsWith(`${origin}/`));
  const lockAt = async () =>
    ((await extension.storage('session'))['kassa.unlocked'] as { lockAt: number } | undefined)?.lockAt;

  before(async () => {
    sites = await startSites();
    stack = await startStack({ env: { KASSA_ALLOWED_ORIGINS: SHOP_ORIGIN } });
    chains = chainProviders(stack.sandbox.chains);
    hostile = await hostileProxy(stack.proxy.origin);
    tampering = await tamperingProxy(stack.proxy.origin, 'fee');
    extension = await launchExtension();
    // An operator signed in by device, and the wallet beside: each test stands on its own.
    await signIn(extension, stack.proxy.origin, stack.admin);
    await importVaultKey(extension, ACCOUNT, PASSWORD);
    shop = await openDapp(extension, `${sites.origin('shop.localhost')}/`);
    await connectDapp(extension, shop);
  });
  after(async () => {
    chains?.destroy();
    await extension?.dispose();
    hostile?.server.close();
    tampering?.close();
    await stack?.stop();
    await sites?.close();
  });

  it('the wallet needs no operator’s sign-in, and never sends a token (defect 2)', async () => {
    // The wallet's calls all need the proxy's chain listing: the chain, reads, a switch.
    const walletCalls = async (page: Page) => {
      assert.deepEqual(await call(page, 'eth_chainId'), { result: '0x7a69' });
      assert.match(String((await call(page, 'eth_blockNumber')).result), /^0x[0-9a-f]+$/);
      assert.deepEqual(await call(page, 'wallet_switchEthereumChain', [{ chainId: '0x7a69' }]), { result: null });
    };
    const tokensSent = (loaded: LoadedExtension, from: number) => {
      const toProxy = loaded.requests
        .slice(from)
        .filter((request) => request.from === 'service worker' && request.url.startsWith(`${stack.proxy.origin}/`));
      assert.ok(
        toProxy.some((request) => request.url === `${stack.proxy.origin}/api/bridge/chains?network=test`),
        'the public chain listing is read',
      );
      // The wallet's calls are the proxy's public routes; the operator views' (signed in) are not the wallet's.
      const wallet = toProxy.filter((request) => /\/api\/(bridge\/|config)/.test(request.url));
      return wallet.filter((request) => request.headers.authorization).map((request) => request.url);
    };
    // Signed in as an operator: still, no wallet request carries the device token. (Saving the same
    // proxy URL keeps the session and has the listing read again.)
    const before = extension.requests.length;
    await configure(extension, stack.proxy.origin);
    await walletCalls(shop);
    assert.deepEqual(tokensSent(extension, before), [], 'no wallet request carries a token');

    // A wallet user's browser: the proxy URL and no token at all.
    const user = await launchExtension();
    try {
      await configure(user, stack.proxy.origin);
      await importVaultKey(user, ACCOUNT, PASSWORD);
      const page = await openDapp(user, `${sites.origin('shop.localhost')}/`);
      await connectDapp(user, page);
      await walletCalls(page);
      // The operator views say what they lack; the wallet does not need it.
      const payments = await user.openPage('ui/popup.html?tab=payments');
      await payments.locator('#signed-out').getByText('Sign in to use the operator views').waitFor();
      assert.deepEqual(tokensSent(user, 0), [], 'no wallet request carries a token');
      assert.deepEqual(
        user.requests.filter((request) => request.headers.authorization).map((request) => request.url),
        [],
        'signed out, no request carries any',
      );
    } finally {
      await user.dispose();
    }
  });

  it('the idle lock is not held off by the Wallet tab’s polling of a transfer under way (defect 3)', async () => {
    // A transfer that stays under way: the destination chain's mints are held.
    assert.equal((await stack.control('/relayer/hold', { chainId: TWO })).status, 200);
    try {
      const wallet = await extension.openPage('ui/popup.html?tab=wallet');
      const autoLock = wallet.getByRole('form', { name: 'Auto-lock' });
      await autoLock.getByLabel('Lock after (minutes without use)').fill('1');
      await autoLock.getByRole('button', { name: 'Save' }).click();
      await wallet.getByText('Kassa now locks after 1 minutes without use.').waitFor();
      const [one, two] = stack.sandbox.chains;
      const prepared = await stack.browser('/api/bridge/prepare', {
        body: {
          sourceAmount: '1',
          sourceToken: one!.tokens.eUSD.address,
          destinationToken: two!.tokens.eUSD.address,
          destinationChainId: TWO,
        },
      });
      const tx = Transaction.from((prepared.body as { tx: string }).tx);
      const opening = approvalWindow(extension);
      const sent = call(shop, 'eth_sendTransaction', [
        { from: ACCOUNT.address, to: tx.to, data: tx.data, value: '0x0', gas: toQuantity(tx.gasLimit) },
      ]);
      await press(await opening, 'Approve');
      const hash = (await sent).result as string;
      assert.match(hash, /^0x[0-9a-f]{64}$/);
      // The last user action was the approval: the lock is a minute after it.
      const deadline = await lockAt();
      assert.ok(deadline, 'unlocked');
      await wallet.reload();
      await wallet.locator(`[data-hash="${hash}"][data-state="confirmed"]`).waitFor({ timeout: PATIENCE_MS });
      const readsBefore = fromWorkerTo(one!.rpcUrl.replace(/\/$/, '')).length;
      await eventually(
        () => fromWorkerTo(one!.rpcUrl.replace(/\/$/, '')).length > readsBefore || undefined,
        'the tab to read the chains again',
      );
      assert.equal(await lockAt(), deadline, 'polling did not push the lock back');
      // Past the minute, the key is locked while the tab still polls: pages see no account.
      await eventually(
        async () => ((await call(shop, 'eth_accounts')).result as string[]).length === 0 || undefined,
        'the idle lock',
      );
      assert.ok(Date.now() >= deadline - 1_000, 'not before its time');
      await wallet.reload();
      await wallet
        .getByRole('heading', { name: /^Wallet/ })
        .locator('.badge')
        .filter({ hasText: /^Locked$/ })
        .waitFor();
      await wallet.close();
    } finally {
      assert.equal((await stack.control('/relayer/release', { chainId: TWO })).status, 200);
    }
  });

  it('the wallet panel’s “at most” is what Kassa signs, whatever fee a tampering proxy suggests (defect 8)', async () => {
    const page = await extension.context.newPage();
    await page.goto(`${sites.origin('panel.localhost')}/`);
    const proxy = `http://127.0.0.1:${(tampering.address() as AddressInfo).port}`;
    await page.evaluate(
      ([script, proxy]) => {
        const element = document.createElement('script');
        element.type = 'module';
        element.src = script!;
        document.head.append(element);
        const panel = document.createElement('kassa-bridge');
        panel.setAttribute('proxy', proxy!);
        document.body.append(panel);
      },
      [`${stack.proxy.origin}/kassa.js`, proxy],
    );
    const panel = page.locator('kassa-bridge');
    let opening = approvalWindow(extension);
    await panel.getByRole('button', { name: 'Kassa' }).click();
    let approval = await opening;
    await approval.getByRole('button', { name: 'Connect' }).waitFor();
    // Locked by now (the test before), unless the idle lock failed.
    if (await approval.getByLabel(/password/).count()) await approval.getByLabel(/password/).fill(PASSWORD);
    await press(approval, 'Connect');
    await page.locator('kassa-bridge[phase="ready"]').waitFor({ timeout: PATIENCE_MS });
    await panel.getByLabel('Amount').fill('2');
    await panel.getByRole('button', { name: 'Review transfer' }).click();
    await page.locator('kassa-bridge[phase="review"]').waitFor();
    const atMost = await panel.locator('[data-field="fee"]').getAttribute('title');
    opening = approvalWindow(extension);
    await panel.getByRole('button', { name: 'Confirm in wallet' }).click();
    approval = await opening;
    assert.equal(
      await approval.locator('[data-field="fee"]').getAttribute('title'),
      atMost,
      'Kassa shows the panel’s fee',
    );
    assert.equal(await approval.locator('[data-field=fee-warning]').count(), 0);
    await press(approval, 'Approve');
    await page.locator('kassa-bridge[phase="arrived"]').waitFor({ timeout: PATIENCE_MS });
    const hash = await panel.locator('[part~="hash"]').first().innerText();
    const mined = await chains.get(31337).getTransaction(hash.trim());
    assert.ok(mined!.maxFeePerGas! < TAMPERED_FEE, 'not the proxy’s million gwei');
    assert.equal(
      atMost,
      `${formatUnits(mined!.gasLimit * mined!.maxFeePerGas!, 18)} ETH`,
      '“at most” is what was signed',
    );
    await page.close();
  });

  it('the device token goes only to the proxy that issued it (defect 7)', async () => {
    const settings = await extension.openPage('ui/popup.html?tab=settings');
    await settings.locator('#operator-name').waitFor();
    await settings.getByRole('button', { name: 'Test connection' }).click();
    await settings
      .getByRole('status')
      .filter({ hasText: /^Connected: proxy / })
      .waitFor();
    const token = await deviceTokenOf(extension);

    // Another URL: the device is signed out of the proxy that issued its token, there, and forgets it.
    await settings.getByLabel('Proxy URL').fill(hostile.origin);
    await settings.getByRole('button', { name: 'Save' }).click();
    await settings.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    await settings
      .locator('#session-notice')
      .filter({ hasText: `You were signed out of ${stack.proxy.origin}: sign in again for this proxy.` })
      .waitFor();
    assert.equal((await extension.storage())['kassa.operatorSession'], undefined, 'forgotten');
    assert.equal(
      (await stack.operator('/api/operator/me', { headers: { Authorization: `Bearer ${token}` } })).status,
      401,
    );
    const tested = hostile.heard.length;
    await settings.getByRole('button', { name: 'Test connection' }).click();
    await eventually(() => (hostile.heard.length > tested ? true : undefined), 'the new proxy called');
    await settings
      .getByRole('status')
      .filter({ hasText: 'Connected: the proxy lists 2 chains. The operator views need you to sign in.' })
      .waitFor();
    const payments = await extension.openPage('ui/popup.html?tab=payments');
    await payments.locator('#signed-out').waitFor();
    assert.deepEqual(
      hostile.heard.filter((request) => request.authorization),
      [],
      'the new proxy never received a token',
    );
    const stored = (await extension.storage())['kassa.settings'] as Record<string, unknown>;
    assert.deepEqual(stored, { proxyUrl: hostile.origin, network: 'test' });
    await payments.close();
    await settings.close();
  });

  it('values from a proxy cannot reorder or overflow the operator views at 360 px (defect 9)', async () => {
    await configure(extension, hostile.origin);
    // Signed in to it by its own device sign-in (it approves at once).
    const { page: signing } = await startSignIn(extension);
    await signing.locator('#operator-name').filter({ hasText: 'Hostile Admin' }).waitFor();
    await signing.close();
    const page = await extension.openPage('ui/sidepanel.html?tab=orders');
    await page.setViewportSize({ width: 360, height: 800 });
    const row = 'kassa-orders-view tr[data-order="order-1"]';
    await page.locator(row).waitFor();
    // The override is shown, not obeyed: "evil" reads "evil", left to right, and all of it fits.
    assert.ok((await leftOf(page, `${row} td`, 'e')) < (await leftOf(page, `${row} td`, 'l')), '"evil" reads "evil"');
    assert.deepEqual(await overflowing(page), [], 'nothing wider than the side panel');
    assert.match((await page.locator(`${row} td`).first().innerText()).replace(/\s+/g, ' '), /U\+202Eevil/);
    // A name with an override is refused by the form, saying why.
    const form = page.getByRole('form', { name: 'New order' });
    await page.getByText('New order').first().click();
    await form.getByLabel('Amount').fill('5');
    await form.getByLabel('Customer’s name').fill(`${RLO}evil`);
    await form.getByLabel('Customer’s order number').fill('o-1');
    await form.getByRole('button', { name: 'Create order' }).click();
    await form.getByText('Remove the invisible direction characters (such as U+202E)').waitFor();

    await page.goto(page.url().replace('tab=orders', 'tab=payments'));
    const card = 'kassa-unverifiable-payments li.card';
    await page.locator(card).waitFor();
    // After the reference come its amount and status, in that order, left to right.
    const reference = await leftOf(page, card, 'evil-ref');
    const amount = await leftOf(page, card, '€');
    const status = await leftOf(page, card, 'PENDING');
    assert.ok(reference < amount && amount < status, `reference ${reference}, amount ${amount}, status ${status}`);
    assert.deepEqual(await overflowing(page), [], 'nothing wider than the side panel');
    await page.close();
    assert.equal(
      hostile.heard.filter((request) => request.authorization === `Bearer ${HOSTILE_TOKEN}`).length > 0,
      true,
      'the token this proxy issued is used with it',
    );
  });
});
