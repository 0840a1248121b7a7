import assert from 'node:assert/strict';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { gunzipSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { filesSize, gzipSize } from '../../bench/peers/gzip-size.ts';
import { ANNOUNCED_WALLET, readyProbe } from '../../bench/peers/page-probes.ts';
import { ratioLine, Report, reasonOf, showFigure, showRatio, unavailableLine } from '../../bench/peers/report.ts';
import { startStaticServer, type StaticServer } from '../../bench/peers/static-server.ts';
import { npmFailure } from '../../bench/peers/work-folder.ts';
import { launchChromium } from '../support/browser.ts';

describe('peers benchmark: ratios as printed', () => {
  it('prints kassa / peer with both figures, in KB or ms', () => {
    assert.equal(
      ratioLine(
        'script-tag cost',
        { label: 'kassa.js', value: 12_083, unit: 'bytes' },
        { label: 'adyen', value: 53_135, unit: 'bytes' },
      ),
      'script-tag cost: kassa / peer = 0.23  (kassa.js 11.80 KB / adyen 51.89 KB)',
    );
    assert.equal(
      ratioLine('ready', { label: 'kassa', value: 374.4, unit: 'ms' }, { label: 'lifi', value: 862.6, unit: 'ms' }),
      'ready: kassa / peer = 0.43  (kassa 374 ms / lifi 863 ms)',
    );
    assert.equal(showFigure({ label: 'x', value: 4.25, unit: 'ms' }), '4.3 ms');
  });

  it('keeps two significant digits for small ratios, and says n/a when there is nothing to divide by', () => {
    assert.equal(showRatio(1, 400), '0.0025');
    assert.equal(showRatio(12, 1.6), '7.50');
    assert.equal(showRatio(0, 5), '0.00');
    assert.equal(showRatio(5, 0), 'n/a');
    assert.equal(showRatio(Number.NaN, 5), 'n/a');
  });

  it('prints a ratio within rounding of kassa divided by peer', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 1e-3, max: 1e9, noNaN: true }),
        fc.double({ min: 1e-3, max: 1e9, noNaN: true }),
        (a, b) => {
          const shown = Number(showRatio(a, b));
          const exact = a / b;
          // Two decimals, or two significant digits below 0.1; plus a few units in the last place,
          // since a large quotient's half-way point is rounded in binary, not in decimal.
          const tolerance = (exact >= 0.1 ? 0.005 : exact * 0.05) + exact * 1e-14;
          assert.ok(Math.abs(shown - exact) <= tolerance, `${a} / ${b}: ${shown} against ${exact}`);
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('refuses to divide bytes by milliseconds', () => {
    assert.throws(
      () => ratioLine('x', { label: 'a', value: 1, unit: 'bytes' }, { label: 'b', value: 1, unit: 'ms' }),
      /bytes compared with ms/,
    );
  });

  it('reports a peer it could not measure with the reason and Kassa’s own figure, and keeps every comparison', () => {
    const printed: string[] = [];
    const report = new Report((line) => printed.push(line));
    report.note('installed');
    report.ratio('size', { label: 'k', value: 1024, unit: 'bytes' }, { label: 'p', value: 4096, unit: 'bytes' });
    report.unavailable('start', { label: 'k', value: 1340, unit: 'ms' }, 'stripe-mock', 'no such package');
    assert.deepEqual(report.comparisons, [
      'size: kassa / peer = 0.25  (k 1.00 KB / p 4.00 KB)',
      unavailableLine('start', { label: 'k', value: 1340, unit: 'ms' }, 'stripe-mock', 'no such package'),
    ]);
    assert.equal(report.comparisons[1], 'start: kassa / stripe-mock not measured (k 1340 ms): no such package');
    assert.deepEqual(printed, ['  installed', `= ${report.comparisons[0]}`, `= ${report.comparisons[1]}`]);
    assert.equal(reasonOf(new Error('first\nsecond')), 'first');
  });
});

describe('peers benchmark: gzip sizes', () => {
  let dir: string;
  before(() => (dir = mkdtempSync(join(tmpdir(), 'kassa-peers-'))));
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('measures what gzip at level 9 sends, as bench/widget.ts does, and the data comes back whole', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 4096 }), (data) => {
        const zipped = gzipSync(data, { level: 9 });
        assert.equal(gzipSize(data), zipped.length);
        assert.deepEqual(new Uint8Array(gunzipSync(zipped)), data);
      }),
    );
    const text = 'customElements.define("kassa-checkout", class extends HTMLElement {});\n'.repeat(200);
    assert.ok(gzipSize(text) < text.length / 10, 'repeated text compresses');
  });

  it('sums files each gzipped on its own', () => {
    const one = join(dir, 'one.js');
    const two = join(dir, 'two.js');
    writeFileSync(one, 'export const a = 1;\n'.repeat(50));
    writeFileSync(two, 'export const b = "two";\n');
    assert.deepEqual(filesSize([one, two]), {
      files: 2,
      raw: readFileSync(one).length + readFileSync(two).length,
      gzip: gzipSize(readFileSync(one)) + gzipSize(readFileSync(two)),
    });
    assert.deepEqual(filesSize([]), { files: 0, raw: 0, gzip: 0 });
  });
});

describe('peers benchmark: npm failures on one line', () => {
  it('names a package the registry does not have', () => {
    const output = [
      'npm error code E404',
      'npm error 404 Not Found - GET https://registry.example/stripe-mock - Not found',
      'npm error 404',
      'npm error A complete log of this run can be found in: /root/.npm/_logs/x.log',
    ].join('\n');
    assert.equal(npmFailure(output), 'the npm registry has no package stripe-mock (E404)');
    assert.equal(
      npmFailure('npm error code E404\nnpm error 404 Not Found - GET https://registry.example/@stripe%2fstripe-mock\n'),
      'the npm registry has no package @stripe/stripe-mock (E404)',
    );
  });

  it('keeps npm’s own error lines, without the log file', () => {
    const output =
      'npm warn deprecated x\nnpm error code ETARGET\nnpm error notarget No matching version\nnpm error A complete log of this run can be found in: /x.log\n';
    assert.equal(npmFailure(output), 'code ETARGET / notarget No matching version');
  });

  it('always answers one line, whatever npm printed', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), (output) => {
        assert.ok(!npmFailure(output).includes('\n'));
      }),
    );
  });
});

/** The status of a GET whose path is sent exactly as written. */
const rawStatus = (url: string) =>
  new Promise<number>((resolve, reject) => {
    const { host, port } = new URL(url);
    const path = url.slice(url.indexOf('/', 'http://'.length));
    get({ host: host.split(':')[0], port, path }, (response) => {
      response.resume();
      resolve(response.statusCode!);
    }).once('error', reject);
  });

describe('peers benchmark: the static server', () => {
  let dir: string;
  let server: StaticServer;
  const pages: Record<string, string> = {};
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'kassa-static-'));
    mkdirSync(join(dir, 'site', 'assets'), { recursive: true });
    writeFileSync(join(dir, 'site', 'index.html'), '<!doctype html><p>site</p>');
    writeFileSync(join(dir, 'site', 'assets', 'main.js'), 'export {};');
    writeFileSync(join(dir, 'secret.txt'), 'not served');
    server = await startStaticServer({ '/site/': join(dir, 'site') }, pages);
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves a mounted folder with its types, pages added after it started, and nothing outside', async () => {
    assert.match(server.origin, /^http:\/\/127\.0\.0\.1:\d+$/);
    const script = await fetch(`${server.origin}/site/assets/main.js`);
    assert.equal(script.headers.get('content-type'), 'text/javascript; charset=utf-8');
    assert.equal(await script.text(), 'export {};');
    assert.equal(await (await fetch(`${server.origin}/site/`)).text(), '<!doctype html><p>site</p>');
    pages['/panel.html'] = '<kassa-bridge></kassa-bridge>';
    assert.equal(await (await fetch(`${server.origin}/panel.html`)).text(), '<kassa-bridge></kassa-bridge>');
    for (const path of ['/elsewhere', '/site/missing.js'])
      assert.equal((await fetch(`${server.origin}${path}`)).status, 404, path);
    // Sent as is (fetch would resolve the dots before sending): the server must not leave the folder.
    for (const path of ['/site/../secret.txt', '/site/..%2fsecret.txt', '/site/%2e%2e%2fsecret.txt'])
      assert.equal(await rawStatus(`${server.origin}${path}`), 404, path);
  });
});

describe('peers benchmark: ready, as both panels are timed', () => {
  it('is the first frame the button is visible, and the announced wallet reaches the page', async () => {
    // The button is hidden, then shown 300 ms in, named after the wallet the page was announced; the
    // page notes when each of the next two frames runs.
    const page = `<!doctype html><button id="connect" hidden>Connect</button><script>
      window.addEventListener('eip6963:announceProvider', (event) => (window.walletName = event.detail.info.name));
      window.dispatchEvent(new Event('eip6963:requestProvider'));
      setTimeout(() => {
        window.shownAt = performance.now();
        const button = document.getElementById('connect');
        button.textContent = window.walletName;
        button.hidden = false;
        window.frames = [];
        const frame = () => window.frames.push(performance.now()) < 2 && requestAnimationFrame(frame);
        requestAnimationFrame(frame);
      }, 300);
    </script>`;
    const server = await startStaticServer({}, { '/ready.html': page });
    const browser = await launchChromium();
    try {
      const tab = await browser.newPage();
      await tab.addInitScript({ content: ANNOUNCED_WALLET });
      await tab.addInitScript({ content: readyProbe(`() => document.getElementById('connect')`) });
      await tab.goto(`${server.origin}/ready.html`);
      await tab.waitForFunction(() => {
        const page = window as unknown as { frames?: number[]; benchReadyAt?: number };
        return page.frames?.length === 2 && page.benchReadyAt !== undefined;
      });
      const { readyAt, shownAt, frames, text } = await tab.evaluate(() => ({
        readyAt: (window as unknown as { benchReadyAt: number }).benchReadyAt,
        shownAt: (window as unknown as { shownAt: number }).shownAt,
        frames: (window as unknown as { frames: number[] }).frames,
        text: document.getElementById('connect')!.textContent,
      }));
      assert.equal(text, 'Bench Wallet');
      assert.ok(readyAt >= shownAt, `ready at ${readyAt} ms, before the button was shown at ${shownAt} ms`);
      // Counted in frames, not milliseconds: ready on the first frame after it shows (the second, at most).
      assert.ok(readyAt <= frames[1]!, `ready at ${readyAt} ms, after the frames that followed (${frames.join(', ')})`);
    } finally {
      await browser.close();
      await server.close();
    }
  });
});
