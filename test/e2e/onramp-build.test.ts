/**
 * The on-ramp as built (test/run.ts builds the widget first): a chunk of its own within 20 KB
 * gzipped with what it brings (the modules it shares with the wallet panel, its English), without
 * ethers (the proxy verifies signatures), imported only by kassa.js's first-use list and never
 * requested by a page without it; its other languages as chunks of their own; and the demo's /buy
 * page, whose strict CSP allows exactly the offer's chain RPC and data: icons.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright';
import { chunkWithImports, gzippedSize, WIDGET_CHUNKS } from '../../demo/widget-build.ts';
import { launchChromium, waitForPhase, watchProblems } from '../support/browser.ts';
import { ONRAMP_ENV } from '../support/onramp.ts';
import { startShopStack, type ShopStack } from '../support/shop-stack.ts';

const dist = join(import.meta.dirname, '..', '..', 'dist', 'widget');
const BUDGET = 20 * 1024;
const CHUNK = /\/kassa\/kassa-onramp-[\w-]+\.js$/;
const gzipped = (file: string) => gzippedSize(join(WIDGET_CHUNKS, file));

describe('e2e: the on-ramp as built', () => {
  const chunks = readdirSync(join(dist, 'kassa'));
  const name = chunks.find((file) => /^kassa-onramp-[\w-]+\.js$/.test(file));
  let env: ShopStack;
  let browser: Browser;

  before(async () => {
    [env, browser] = await Promise.all([startShopStack({ env: ONRAMP_ENV }), launchChromium()]);
  });
  after(async () => {
    await browser.close();
    await env.stop();
  });

  it(`is a chunk of its own, at most ${BUDGET} bytes gzipped with the chunks it brings, without ethers, that kassa.js imports on first use only`, () => {
    assert.ok(name, `a kassa-onramp chunk among ${chunks.join(', ')}`);
    const brought = [...chunkWithImports(name)];
    const size = brought.reduce((total, file) => total + gzipped(file), 0);
    assert.ok(size <= BUDGET, `the on-ramp brings ${size} bytes gzipped: ${brought.join(', ')}`);
    for (const file of brought) {
      const text = readFileSync(join(dist, 'kassa', file), 'utf8');
      // ethers' own words (its version banner, its errors, keccak and secp256k1), in any chunk the on-ramp loads.
      assert.doesNotMatch(text, /ethers|keccak|secp256k1|Transaction\.from|zod/i, file);
      assert.doesNotMatch(text, /Lit is in dev mode/, file);
    }
    const main = readFileSync(join(dist, 'kassa.js'), 'utf8');
    assert.ok(main.includes(`import(\`./kassa/${name}\`)`), 'kassa.js imports it dynamically');
    assert.doesNotMatch(main, /from\s*["'`]\.\/kassa\/kassa-onramp/, 'and never statically');
    const text = readFileSync(join(dist, 'kassa', name), 'utf8');
    assert.match(text, /kassa-onramp/);
    assert.match(text, /personal_sign/);
    // The other languages: a chunk each, imported by the on-ramp's chunk when first used.
    for (const language of ['de', 'fr', 'es', 'nl']) {
      const file = chunks.find((chunk) => new RegExp(`^onramp-${language}-[\\w-]+\\.js$`).test(chunk));
      assert.ok(file, `the on-ramp's ${language} messages`);
      assert.ok(text.includes(`import(\`./${file}\`)`), `${file} is imported on first use`);
      assert.ok(!brought.includes(file));
    }
  });

  it('a page without it never requests it; the /buy page requests it once', async () => {
    for (const path of ['/', '/donate', '/wallet']) {
      const page = await browser.newPage();
      const urls: string[] = [];
      page.on('request', (request) => urls.push(request.url()));
      await page.goto(`${env.shop.origin}${path}`);
      if (path === '/wallet') await page.locator('kassa-bridge[phase="connect"]').waitFor();
      else await waitForPhase(page, 'ready');
      await page.waitForLoadState('networkidle');
      assert.deepEqual(
        urls.filter((url) => CHUNK.test(url) || /\/onramp-\w\w-/.test(url)),
        [],
        path,
      );
      await page.close();
    }
    const page = await browser.newPage();
    const urls: string[] = [];
    page.on('request', (request) => urls.push(request.url()));
    await page.goto(`${env.shop.origin}/buy`);
    await page.locator('kassa-onramp[phase="connect"]').waitFor();
    assert.equal(urls.filter((url) => CHUNK.test(url)).length, 1);
    assert.equal(urls.filter((url) => /\/kassa\/kassa-bridge-/.test(url)).length, 0, 'nor the wallet panel’s chunk');
    await page.close();
  });

  it('the /buy page: a strict CSP that allows the offer’s chain RPC and data: icons, and the on-ramp runs under it with no warning', async () => {
    const page = await browser.newPage();
    const problems = watchProblems(page);
    const response = await page.goto(`${env.shop.origin}/buy`);
    const policy = response!.headers()['content-security-policy'] ?? '';
    for (const chain of env.stack.sandbox.chains)
      assert.ok(policy.includes(new URL(chain.rpcUrl).origin), `connect-src allows ${chain.rpcUrl}: ${policy}`);
    assert.match(policy, /img-src 'self' data:;/);
    assert.match(policy, /require-trusted-types-for 'script'; trusted-types lit-html/);
    assert.doesNotMatch(policy, /unsafe-eval|unsafe-inline/);
    await page.locator('kassa-onramp[phase="connect"]').waitFor();
    await page.locator('kassa-onramp [part="status"]', { hasText: 'No wallet found in this browser.' }).waitFor();
    assert.equal(
      await page.locator('kassa-onramp [part="help"]').getAttribute('href'),
      `${env.shop.origin}/wallet/extension`,
    );
    assert.deepEqual(problems, []);
    await page.close();
  });
});
