/**
 * The wallet panel's weight, and that it costs a checkout nothing: its chunk's bytes on the wire as
 * the proxy sends it (budget 60 KB in Brotli, ethers' used parts included; kassa.js's are
 * bench/widget.ts's), and in Chromium, the requests of the demo's checkout pages (none for the
 * panel's chunk) against those of its wallet page (the chunk, once, when the panel is on the page),
 * and the time from kassa.js loaded to the panel showing its wallets.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright';
import { startDemo } from '../demo/demo.ts';
import { chunkWithImports, ensureWidgetBuilt, WIDGET_BUNDLE } from '../demo/widget-build.ts';
import { launchChromium } from '../test/support/browser.ts';
import { wireBytes, wireLine } from './wire.ts';

const BRIDGE_BUDGET = 60 * 1024;
const RUNS = 7;
const CHUNK = /\/kassa\/kassa-bridge-[\w-]+\.js$/;

/** In the page: notes when the panel first shows its wallets (phase "connect"). */
const PROBE = `new MutationObserver((records, observer) => {
  if (document.querySelector('kassa-bridge[phase="connect"]')) {
    window.kassaConnectAt = performance.now();
    observer.disconnect();
  }
}).observe(document, { subtree: true, attributes: true, attributeFilter: ['phase'] });`;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** The URLs a fresh page requests on `url` until `ready` holds and the network is idle. */
async function requestsOf(browser: Browser, url: string, ready: string): Promise<string[]> {
  const context = await browser.newContext();
  const page = await context.newPage();
  const urls: string[] = [];
  page.on('request', (request) => urls.push(request.url()));
  await page.goto(url);
  await page.locator(ready).waitFor();
  await page.waitForLoadState('networkidle');
  await context.close();
  return urls;
}

export default async function benchBridge(): Promise<void> {
  ensureWidgetBuilt();
  const chunkDir = join(WIDGET_BUNDLE, '..', 'kassa');
  const name = readdirSync(chunkDir).find((file) => /^kassa-bridge-[\w-]+\.js$/.test(file));
  if (!name)
    throw new Error('no kassa-bridge chunk in dist/widget/kassa/: is it in the ON_FIRST_USE list of widget/kassa.ts?');

  const demo = await startDemo({ shopPort: 0, proxyPort: 0, sandboxPort: 0 });
  const browser = await launchChromium();
  try {
    console.log(wireLine(`kassa/${name}`, await wireBytes(demo.proxy.origin, `/kassa/${name}`), BRIDGE_BUDGET));
    // The wallet list and fields it shares with the on-ramp are chunks of their own, loaded with it.
    for (const file of [...chunkWithImports(name)].slice(1))
      console.log(`and ${wireLine(`kassa/${file}`, await wireBytes(demo.proxy.origin, `/kassa/${file}`))}`);
    for (const path of ['/', '/donate']) {
      const urls = await requestsOf(browser, `${demo.shop.origin}${path}`, 'kassa-checkout[phase="ready"]');
      const loaded = urls.filter((url) => CHUNK.test(url));
      console.log(
        `checkout page ${path}: ${urls.length} requests, ${loaded.length ? `LOADED THE WALLET CHUNK (${loaded.join(', ')})` : 'the wallet chunk never requested'}`,
      );
      if (loaded.length) throw new Error(`the checkout page ${path} loaded the wallet panel's chunk`);
    }
    const wallet = await requestsOf(browser, `${demo.shop.origin}/wallet`, 'kassa-bridge[phase="connect"]');
    const loads = wallet.filter((url) => CHUNK.test(url)).length;
    console.log(`wallet page /wallet: ${wallet.length} requests, the wallet chunk requested ${loads} time(s)`);
    if (loads !== 1) throw new Error('the wallet page did not load the panel’s chunk exactly once');

    const shown: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.addInitScript({ content: PROBE });
      await page.goto(`${demo.shop.origin}/wallet`);
      await page.locator('kassa-bridge[phase="connect"]').waitFor();
      shown.push(
        await page.evaluate((script) => {
          const entry = performance.getEntriesByName(script)[0] as PerformanceResourceTiming;
          return (window as unknown as { kassaConnectAt: number }).kassaConnectAt - entry.responseEnd;
        }, `${demo.proxy.origin}/kassa.js`),
      );
      await context.close();
    }
    console.log(
      `kassa.js loaded -> panel ready to connect (chunk, chain listing): median ${median(shown).toFixed(1)} ms, max ${Math.max(...shown).toFixed(1)} ms over ${RUNS} cold page loads`,
    );
  } finally {
    await browser.close();
    await demo.stop();
  }
}
