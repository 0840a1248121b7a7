/**
 * `npm start`: the demo a newcomer runs first. Started as the command starts it (on free ports
 * here), paid through in Chromium, and stopped with Ctrl+C; and its answer when a port is taken. What
 * it printed is kept as test-artifacts/demo/npm-start.txt, the extension's steps as screenshots.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { Wallet } from 'ethers';
import { answerAtBank } from './support/bank.ts';
import { launchChromium, partText, waitForPhase, watchProblems } from '../support/browser.ts';
import { ARTIFACTS, keepScreenshot, SCREENS } from '../support/screenshots.ts';

const root = join(import.meta.dirname, '..', '..');
/** What the demo's keys look like (demo/demo.ts, sandbox key-registry): none may be shown. */
const SECRET_SHAPES = [
  /\bmk_[\w-]{20,}/,
  /\bop_[\w-]{20,}/,
  /\bcs_sandbox_[\w-]{20,}/,
  /\bok_[\w-]{20,}/,
  /hooks\/payments\/[\w-]{20,}/,
  /\bwhsec_[\w+/=]{20,}/,
];

function startDemo(...args: string[]): { child: ChildProcess; output: () => string } {
  // node with tsx's loader, not the tsx command: that one relays Ctrl+C to its child and, on a busy
  // machine, kills it when the child does not acknowledge within 30 ms (exit 130).
  const child = spawn(process.execPath, ['--import', 'tsx', 'demo/start.ts', ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (data: Buffer) => (output += data.toString()));
  child.stderr.on('data', (data: Buffer) => (output += data.toString()));
  return { child, output: () => output };
}

async function until(check: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('e2e: npm start (the demo)', () => {
  const children: ChildProcess[] = [];
  after(() => children.forEach((child) => child.exitCode === null && child.kill('SIGKILL')));

  it('prints where to go; a customer pays on the bank page, sees it completed and confirmed by the shop; no secret shows', async () => {
    const demo = startDemo('--shop-port', '0', '--proxy-port', '0', '--sandbox-port', '0');
    children.push(demo.child);
    await until(() => demo.output().includes('Ctrl+C stops it'), 'the demo to start');
    const shop = /Shop\s+(http:\/\/127\.0\.0\.1:\d+)\//.exec(demo.output())?.[1];
    assert.ok(shop, demo.output());
    const proxyOrigin = /Proxy\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(demo.output())?.[1];
    assert.ok(proxyOrigin, demo.output());
    assert.match(demo.output(), /Buy\s+http:\/\/127\.0\.0\.1:\d+\/buy\s/);
    assert.match(demo.output(), /Sandbox\s+http:\/\/127\.0\.0\.1:\d+/);
    const reference = /API\s+(http:\/\/127\.0\.0\.1:\d+\/docs)/.exec(demo.output())?.[1];
    assert.equal((await fetch(reference!)).headers.get('content-type'), 'text/html; charset=UTF-8');
    // The Kassa extension is built and its folder printed, to load unpacked, and the proxy URL its Settings take.
    const folder = /Extension\s+(\S+)/.exec(demo.output())?.[1];
    assert.ok(folder && existsSync(join(folder, 'manifest.json')), demo.output());
    assert.match(demo.output(), new RegExp(`then in its Settings the proxy URL ${proxyOrigin}`));
    // One test account to use, marked as the sandbox's only: its key controls the address printed.
    const account = /Account\s+(0x[0-9a-fA-F]{40})/.exec(demo.output())?.[1];
    const key = /key (0x[0-9a-f]{64})/.exec(demo.output())?.[1];
    assert.ok(account && key, demo.output());
    assert.equal(new Wallet(key).address, account);
    assert.match(demo.output(), /SANDBOX ONLY: anvil's public development key, never for real money/);
    mkdirSync(join(ARTIFACTS, 'demo'), { recursive: true });
    writeFileSync(join(ARTIFACTS, 'demo', 'npm-start.txt'), demo.output());

    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      const problems = watchProblems(page);
      const html = await (await page.goto(`${shop}/`))!.text();
      await waitForPhase(page, 'ready');
      await page.getByRole('button', { name: 'Pay by bank' }).click();
      await page.waitForURL(/\/pay\/flow\//);
      assert.match(
        (await page.locator('.payee').textContent()) ?? '',
        /To\s+Kassa demo shop/,
        'the bank names the shop',
      );
      await answerAtBank(page, 'Authorise payment');
      await waitForPhase(page, 'waiting');
      await waitForPhase(page, 'completed');
      assert.equal(await partText(page, 'status'), 'Payment received. Thank you!');
      assert.ok((await page.locator('#events li').count()) >= 2, 'the page lists the events');
      // The shop's server heard it from the proxy too, as a signed checkout.paid event it verified.
      await page
        .locator('#confirmation', { hasText: "Paid, confirmed by the shop's server" })
        .waitFor({ timeout: 20_000 });
      for (const shape of SECRET_SHAPES) assert.doesNotMatch(html, shape);

      // The extension's steps: the Settings with this proxy's URL, and the sandbox's test account.
      for (const screen of ['phone', 'desktop'] as const) {
        const steps = await browser.newPage(SCREENS[screen]);
        await steps.goto(`${shop}/wallet/extension`);
        assert.equal(await steps.locator('#proxy-url').textContent(), proxyOrigin);
        assert.equal(await steps.locator('#test-account').textContent(), account);
        await keepScreenshot(steps, 'demo', 'extension-steps');
        await steps.close();
      }

      // /buy, from the shop's menu: the on-ramp lists what can be bought once a wallet is there, and
      // says so when the browser has none.
      await page.getByRole('link', { name: 'Buy', exact: true }).click();
      await page.waitForURL(`${shop}/buy`);
      await page.locator('kassa-onramp[phase="connect"]').waitFor();
      await page.locator('kassa-onramp [part="status"]', { hasText: /No wallet found in this browser\./ }).waitFor();
      const offer = await page.evaluate(
        async (proxy) => (await fetch(`${proxy}/api/onramp/config`)).json(),
        proxyOrigin,
      );
      assert.deepEqual(offer.coins, [
        { currencyCode: 'EUR', symbol: 'eEUR' },
        { currencyCode: 'GBP', symbol: 'eGBR' },
      ]);
      assert.deepEqual([offer.min, offer.max, offer.walletLimit], ['1', '500', '1000']);
      assert.deepEqual(problems, []);
    } finally {
      await browser.close();
    }
    for (const shape of SECRET_SHAPES) assert.doesNotMatch(demo.output(), shape);

    demo.child.kill('SIGINT');
    const [code] = await once(demo.child, 'exit');
    assert.equal(code, 0);
  });

  it('a taken port: a clear message naming it and the option to change it, and nothing left running', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as AddressInfo;
    try {
      const demo = startDemo('--shop-port', '0', '--proxy-port', String(port), '--sandbox-port', '0');
      children.push(demo.child);
      const [code] = await once(demo.child, 'exit');
      assert.equal(code, 1);
      assert.match(demo.output(), new RegExp(`port ${port} \\(the proxy\\) is already in use.*--proxy-port`));
    } finally {
      taken.close();
    }
  });
});
