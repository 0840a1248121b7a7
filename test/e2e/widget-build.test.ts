/**
 * The built widget (test/run.ts builds it first): one ES module under its size budget, with its
 * chunks beside it, served by the proxy, and Lit's production build inside.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { gzipSync } from 'node:zlib';
import type { Browser } from 'playwright';
import { launchChromium, waitForPhase } from '../support/browser.ts';
import { startShopStack, type ShopStack } from '../support/shop-stack.ts';

const dist = join(import.meta.dirname, '..', '..', 'dist', 'widget');
const BUDGET = 12 * 1024;

describe('e2e: the built widget', () => {
  const bundle = readFileSync(join(dist, 'kassa.js'));
  const chunks = readdirSync(join(dist, 'kassa'));
  let env: ShopStack;
  let browser: Browser;

  before(async () => {
    [env, browser] = await Promise.all([startShopStack(), launchChromium()]);
  });
  after(async () => {
    await browser.close();
    await env.stop();
  });

  it(`kassa.js is at most ${BUDGET} bytes gzipped, Lit included, and holds neither zod nor ethers`, () => {
    const size = gzipSync(bundle, { level: 9 }).length;
    assert.ok(size <= BUDGET, `kassa.js is ${size} bytes gzipped`);
    const text = bundle.toString('utf8');
    assert.match(text, /customElements\.define\(|kassa-checkout/);
    assert.doesNotMatch(text, /zod|ZodError|ethers|keccak/i);
    assert.doesNotMatch(text, /Lit is in dev mode/, 'Lit’s production build');
  });

  it('the chunks it imports are in dist/widget/kassa/, and nothing else is emitted', () => {
    assert.deepEqual(readdirSync(dist).sort(), ['kassa', 'kassa.js']);
    const direct = [...bundle.toString('utf8').matchAll(/import\(`\.\/kassa\/([\w.-]+\.js)`\)/g)].map(
      (match) => match[1]!,
    );
    assert.ok(direct.length >= 4, 'the other languages are chunks');
    // Chunks may share modules through chunks of their own (the wallet panel and the amount field share
    // lib/money), and import chunks of their own on first use (the on-ramp its other languages).
    const imported = new Set(direct);
    for (const chunk of imported) {
      const text = readFileSync(join(dist, 'kassa', chunk), 'utf8');
      for (const [, statically, onFirstUse] of text.matchAll(
        /from\s*"\.\/([\w.-]+\.js)"|import\(`\.\/([\w.-]+\.js)`\)/g,
      ))
        imported.add((statically ?? onFirstUse)!);
    }
    assert.deepEqual([...imported].sort(), [...chunks].sort());
  });

  it('the proxy serves kassa.js and each chunk, as JavaScript any page may load', async () => {
    const main = await fetch(`${env.stack.proxy.origin}/kassa.js`);
    assert.equal(main.status, 200);
    assert.match(main.headers.get('content-type') ?? '', /text\/javascript/);
    assert.equal(Buffer.from(await main.arrayBuffer()).equals(bundle), true);
    for (const chunk of chunks) {
      const served = await fetch(`${env.stack.proxy.origin}/kassa/${chunk}`);
      assert.equal(served.status, 200, chunk);
      assert.match(served.headers.get('cache-control') ?? '', /immutable/, chunk);
    }
  });

  it('runs in a page with a strict CSP and Trusted Types, with no warning', async () => {
    const page = await browser.newPage();
    const messages: string[] = [];
    page.on('console', (message) => messages.push(`${message.type()}: ${message.text()}`));
    page.on('pageerror', (error) => messages.push(`error: ${error.message}`));
    const response = await page.goto(env.shop.origin);
    assert.match(
      response!.headers()['content-security-policy'] ?? '',
      /script-src 'self' http:\/\/127\.0\.0\.1:\d+;.*require-trusted-types-for 'script'/,
    );
    await waitForPhase(page, 'ready');
    assert.deepEqual(messages, []);
    await page.close();
  });
});
