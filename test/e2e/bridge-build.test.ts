/**
 * The wallet panel as built (test/run.ts builds the widget first): its own chunk within its budget,
 * imported only by kassa.js's first-use list, never requested by a page that shows only a checkout;
 * and the demo's wallet page, whose strict CSP allows exactly the chains' RPC and data: icons.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright';
import { chunkWithImports, gzippedSize, WIDGET_CHUNKS } from '../../demo/widget-build.ts';
import { launchChromium, waitForPhase, watchProblems } from '../support/browser.ts';
import { bridgePhase } from './support/bridge-page.ts';
import { startShopStack, type ShopStack } from '../support/shop-stack.ts';

const dist = join(import.meta.dirname, '..', '..', 'dist', 'widget');
const BUDGET = 110 * 1024;
const CHUNK = /\/kassa\/kassa-bridge-[\w-]+\.js$/;

describe('e2e: the wallet panel as built', () => {
  const chunks = readdirSync(join(dist, 'kassa'));
  const name = chunks.find((file) => /^kassa-bridge-[\w-]+\.js$/.test(file));
  let env: ShopStack;
  let browser: Browser;

  before(async () => {
    [env, browser] = await Promise.all([startShopStack(), launchChromium()]);
  });
  after(async () => {
    await browser.close();
    await env.stop();
  });

  it(`is a chunk of its own, at most ${BUDGET} bytes gzipped with the chunks it brings, that kassa.js imports on first use only`, () => {
    assert.ok(name, `a kassa-bridge chunk among ${chunks.join(', ')}`);
    // The wallet list and the fields it shares with the on-ramp come in a chunk of their own.
    const brought = [...chunkWithImports(name)];
    const size = brought.reduce((total, file) => total + gzippedSize(join(WIDGET_CHUNKS, file)), 0);
    assert.ok(size <= BUDGET, `the wallet panel brings ${size} bytes gzipped: ${brought.join(', ')}`);
    const main = readFileSync(join(dist, 'kassa.js'), 'utf8');
    assert.ok(main.includes(`import(\`./kassa/${name}\`)`), 'kassa.js imports it dynamically');
    assert.doesNotMatch(
      main,
      /kassa-bridge-[\w-]+\.js[`'"]\s*;?\s*import|from\s*["'`]\.\/kassa\/kassa-bridge/,
      'and never statically',
    );
    const text = brought.map((file) => readFileSync(join(WIDGET_CHUNKS, file), 'utf8')).join('\n');
    assert.match(text, /kassa-bridge/);
    assert.match(text, /eip6963:requestProvider/);
    assert.doesNotMatch(text, /Lit is in dev mode/);
  });

  it('a page with only a checkout never requests it; the wallet page requests it once', async () => {
    for (const path of ['/', '/donate']) {
      const page = await browser.newPage();
      const urls: string[] = [];
      page.on('request', (request) => urls.push(request.url()));
      await page.goto(`${env.shop.origin}${path}`);
      await waitForPhase(page, 'ready');
      await page.waitForLoadState('networkidle');
      assert.deepEqual(
        urls.filter((url) => CHUNK.test(url)),
        [],
        path,
      );
      assert.ok(
        urls.some((url) => url.endsWith('/kassa.js')),
        path,
      );
      await page.close();
    }
    const page = await browser.newPage();
    const urls: string[] = [];
    page.on('request', (request) => urls.push(request.url()));
    await page.goto(`${env.shop.origin}/wallet`);
    await bridgePhase(page, 'connect');
    assert.equal(urls.filter((url) => CHUNK.test(url)).length, 1);
    await page.close();
  });

  it('the wallet page: a strict CSP that allows the chains’ RPC and data: icons, and the panel runs under it with no warning', async () => {
    const page = await browser.newPage();
    const problems = watchProblems(page);
    const response = await page.goto(`${env.shop.origin}/wallet`);
    const policy = response!.headers()['content-security-policy'] ?? '';
    for (const chain of env.stack.sandbox.chains)
      assert.ok(policy.includes(new URL(chain.rpcUrl).origin), `connect-src allows ${chain.rpcUrl}: ${policy}`);
    assert.match(policy, /img-src 'self' data:;/);
    assert.match(policy, /require-trusted-types-for 'script'; trusted-types lit-html/);
    assert.doesNotMatch(policy, /unsafe-eval|unsafe-inline/);
    await bridgePhase(page, 'connect');
    await page
      .locator('kassa-bridge [part="status"]', {
        hasText:
          'No wallet found in this browser. Install a wallet extension, or open this page in your wallet’s browser.',
      })
      .waitFor();
    assert.deepEqual(problems, []);
    // The checkout pages keep their policy: no RPC, no data: images (the order page asks its own
    // server whether the payment is confirmed).
    const checkout = await page.goto(`${env.shop.origin}/`);
    assert.match(
      checkout!.headers()['content-security-policy'] ?? '',
      /img-src 'self'; connect-src http:\/\/127\.0\.0\.1:\d+ 'self';/,
    );
    await page.close();
  });
});
