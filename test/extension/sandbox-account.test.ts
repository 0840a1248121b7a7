/**
 * The sandbox's test account in the extension, in real Chromium: on a proxy whose `/api/config` says
 * it runs on the sandbox, the empty Wallet tab offers "Use a sandbox test account", which keeps
 * anvil's first account (the one `npm start` prints) with a password, and the account then holds the
 * sandbox's test stablecoins; on a proxy that says `live` nothing is offered, and the service worker
 * refuses the request even when asked directly. No request carries the key. Screenshots:
 * test-artifacts/extension-sandbox-account/.
 */
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { SANDBOX_TEST_ADDRESS, SANDBOX_TEST_KEY } from '../../lib/sandbox-account.ts';
import { chainProviders, token } from '../support/chains.ts';
import { configure, launchExtension, leaks, overflowing, type LoadedExtension } from '../support/extension.ts';
import { keepScreenshot, SCREENS } from '../support/screenshots.ts';
import { startStack, type Stack } from '../support/stack.ts';
import { PATIENCE_MS } from '../support/patience.ts';

const SUITE = 'extension-sandbox-account';
const PASSWORD = 'correct horse battery staple';

/** A proxy of a shop that takes real money, as far as the wallet asks: `live`, and no chains. */
async function liveProxy(): Promise<{ origin: string; server: Server }> {
  const server = createServer((request, response) => {
    const body = request.url === '/api/config' ? { environment: 'live', openAmount: null } : [];
    response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

describe('extension: the sandbox’s test account', () => {
  let stack: Stack;
  let extension: LoadedExtension;
  let live: Awaited<ReturnType<typeof liveProxy>>;

  before(async () => {
    [stack, extension, live] = await Promise.all([startStack(), launchExtension(), liveProxy()]);
  });
  after(async () => {
    await extension?.dispose();
    live?.server.close();
    await stack?.stop();
  });

  const offer = (page: Awaited<ReturnType<LoadedExtension['openPage']>>) =>
    page.getByRole('form', { name: 'Use a sandbox test account' });

  it('a live proxy: no offer, and the worker refuses the account when asked directly', async () => {
    await configure(extension, live.origin);
    const asked = extension.context.waitForEvent(
      'requestfinished',
      (request) => request.url() === `${live.origin}/api/config`,
    );
    const page = await extension.openPage('ui/popup.html?tab=wallet');
    await page.getByRole('form', { name: 'Import a key' }).waitFor();
    // The proxy has answered, and the page has drawn what it answered.
    await asked;
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    assert.equal(await offer(page).count(), 0);
    const answer = await page.evaluate(
      (password) =>
        chrome.runtime.sendMessage({ channel: 'kassa-ui', request: { kind: 'vault.importSandbox', password } }),
      PASSWORD,
    );
    assert.match(JSON.stringify(answer), /only for a proxy that runs on the sandbox/);
    assert.equal((await extension.storage())['kassa.vault'], undefined, 'no key kept');
    await page.close();
  });

  it('a sandbox proxy: "Use a sandbox test account" keeps the account npm start prints, which holds test stablecoins', async () => {
    await configure(extension, stack.proxy.origin);
    for (const screen of ['phone', 'desktop'] as const) {
      const page = await extension.openPage('ui/popup.html?tab=wallet');
      await page.setViewportSize(SCREENS[screen].viewport);
      await offer(page).waitFor();
      assert.match(
        (await offer(page).textContent()) ?? '',
        new RegExp(`${SANDBOX_TEST_ADDRESS}.*never for real money`),
      );
      assert.deepEqual(await overflowing(page), [], `nothing overflows at ${screen} size`);
      await keepScreenshot(page, SUITE, 'offer');
      await page.close();
    }
    const page = await extension.openPage('ui/popup.html?tab=wallet');
    await offer(page).getByLabel('Password', { exact: true }).fill(PASSWORD);
    await offer(page).getByLabel('Repeat the password').fill(PASSWORD);
    await offer(page).getByRole('button', { name: 'Use the sandbox test account' }).click();
    await page.locator('#address').filter({ hasText: SANDBOX_TEST_ADDRESS }).waitFor({ timeout: PATIENCE_MS });
    await keepScreenshot(page, SUITE, 'kept');

    const chain = stack.sandbox.chains[0]!;
    const providers = chainProviders(stack.sandbox.chains);
    try {
      const balance = (await token(chain, 'eUSD', providers.get(chain.chainId)).getFunction('balanceOf')(
        SANDBOX_TEST_ADDRESS,
      )) as bigint;
      assert.ok(balance > 0n, 'the account holds test stablecoins');
    } finally {
      providers.destroy();
    }
    assert.deepEqual(leaks(extension.requests, [SANDBOX_TEST_KEY, PASSWORD]), []);
  });
});
