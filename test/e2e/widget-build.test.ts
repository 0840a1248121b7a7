/**
 * The built widget (test/run.ts builds it first): one ES module within its budget of bytes on the
 * wire, with its chunks beside it, each also Brotli- and gzip-compressed, served by the proxy in the
 * coding the browser accepts, and Lit's production build inside.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { Browser } from 'playwright';
import { launchChromium, waitForPhase } from '../support/browser.ts';
import { rawGet } from '../support/http.ts';
import { startShopStack, type ShopStack } from '../support/shop-stack.ts';

const dist = join(import.meta.dirname, '..', '..', 'dist', 'widget');
/** What a browser downloads for kassa.js: its Brotli coding. */
const WIRE_BUDGET = 11 * 1024;

describe('e2e: the built widget', () => {
  const bundle = readFileSync(join(dist, 'kassa.js'));
  const chunks = readdirSync(join(dist, 'kassa')).filter((name) => name.endsWith('.js'));
  let env: ShopStack;
  let browser: Browser;

  before(async () => {
    [env, browser] = await Promise.all([startShopStack(), launchChromium()]);
  });
  after(async () => {
    await browser.close();
    await env.stop();
  });

  it(`kassa.js is at most ${WIRE_BUDGET} bytes on the wire, Lit included, and holds neither zod nor ethers`, () => {
    const size = readFileSync(join(dist, 'kassa.js.br')).length;
    assert.ok(size <= WIRE_BUDGET, `kassa.js is ${size} bytes with Brotli`);
    const text = bundle.toString('utf8');
    assert.match(text, /customElements\.define\(|kassa-checkout/);
    assert.doesNotMatch(text, /zod|ZodError|ethers|keccak/i);
    assert.doesNotMatch(text, /Lit is in dev mode/, 'Lit’s production build');
  });

  it('the chunks it imports are in dist/widget/kassa/, each script with its .br and .gz, and nothing else', () => {
    assert.deepEqual(readdirSync(dist).sort(), ['kassa', 'kassa.js', 'kassa.js.br', 'kassa.js.gz']);
    assert.deepEqual(
      readdirSync(join(dist, 'kassa')).sort(),
      chunks.flatMap((chunk) => [chunk, `${chunk}.br`, `${chunk}.gz`]).sort(),
    );
    for (const script of ['kassa.js', ...chunks.map((chunk) => `kassa/${chunk}`)]) {
      const source = readFileSync(join(dist, script));
      assert.ok(brotliDecompressSync(readFileSync(join(dist, `${script}.br`))).equals(source), `${script}.br`);
      assert.ok(gunzipSync(readFileSync(join(dist, `${script}.gz`))).equals(source), `${script}.gz`);
    }
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

  it('the proxy sends kassa.js and the wallet chunk in the coding the request accepts, the same bytes once decoded', async () => {
    const wallet = chunks.find((chunk) => chunk.startsWith('kassa-bridge-'))!;
    const decode = { br: brotliDecompressSync, gzip: gunzipSync, identity: (body: Buffer) => body };
    for (const [path, file, cacheControl] of [
      ['/kassa.js', 'kassa.js', 'public, max-age=300, must-revalidate'],
      [`/kassa/${wallet}`, `kassa/${wallet}`, 'public, max-age=31536000, immutable'],
    ] as const) {
      const source = readFileSync(join(dist, file));
      const etags = new Set<string>();
      for (const [accept, coding] of [
        ['br, gzip', 'br'],
        ['gzip', 'gzip'],
        [undefined, 'identity'],
      ] as const) {
        const url = `${env.stack.proxy.origin}${path}`;
        const sent = await rawGet(url, accept === undefined ? {} : { 'Accept-Encoding': accept });
        const what = `${path} with Accept-Encoding: ${accept ?? '(none)'}`;
        assert.equal(sent.status, 200, what);
        assert.equal(sent.headers['content-encoding'], coding === 'identity' ? undefined : coding, what);
        assert.equal(sent.headers.vary, 'Accept-Encoding', what);
        assert.equal(sent.headers['cache-control'], cacheControl, what);
        assert.equal(Number(sent.headers['content-length']), sent.body.length, what);
        assert.ok(decode[coding](sent.body).equals(source), `${what}: the script's bytes once decoded`);
        if (coding !== 'identity') assert.ok(sent.body.length < source.length / 2.5, `${what}: compressed`);
        const etag = sent.headers.etag!;
        etags.add(etag);
        // The copy the browser has, in the coding it has it: not sent again.
        const again = await rawGet(url, { ...(accept && { 'Accept-Encoding': accept }), 'If-None-Match': etag });
        assert.equal(again.status, 304, what);
        assert.equal(again.body.length, 0);
        assert.equal(again.headers.etag, etag);
        assert.equal(again.headers.vary, 'Accept-Encoding');
      }
      assert.equal(etags.size, 3, `${path}: an ETag per coding`);
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
