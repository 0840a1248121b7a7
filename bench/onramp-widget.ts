/**
 * The on-ramp element's weight and first render: its chunk's bytes on the wire as the proxy sends it,
 * with what it brings (the modules it shares with the wallet panel; budget 20 KB gzipped), each of its
 * other languages (a chunk fetched when first used); and in Chromium, on the demo's /buy page with a
 * cold cache, the time from kassa.js loaded to the on-ramp showing its wallets.
 */
import { readdirSync } from 'node:fs';
import { startDemo } from '../demo/demo.ts';
import { chunkWithImports, ensureWidgetBuilt, WIDGET_CHUNKS } from '../demo/widget-build.ts';
import { launchChromium } from '../test/support/browser.ts';
import { median, ms } from './stats.ts';
import { kb, wireBytes, wireLine } from './wire.ts';

const BUDGET = 20 * 1024;
const RUNS = 7;

/** In the page: notes when the on-ramp first shows its wallets (phase "connect"). */
const PROBE = `new MutationObserver((records, observer) => {
  if (document.querySelector('kassa-onramp[phase="connect"]')) {
    window.kassaConnectAt = performance.now();
    observer.disconnect();
  }
}).observe(document, { subtree: true, attributes: true, attributeFilter: ['phase'] });`;

export default async function benchOnrampWidget(): Promise<void> {
  ensureWidgetBuilt();
  const chunks = readdirSync(WIDGET_CHUNKS);
  const name = chunks.find((file) => /^kassa-onramp-[\w-]+\.js$/.test(file));
  if (!name)
    throw new Error('no kassa-onramp chunk in dist/widget/kassa/: is it in the ON_FIRST_USE list of widget/kassa.ts?');
  const demo = await startDemo({ shopPort: 0, proxyPort: 0, sandboxPort: 0 });
  const browser = await launchChromium();
  try {
    const brought = [...chunkWithImports(name)];
    let brotli = 0;
    let gzip = 0;
    for (const file of brought) {
      const bytes = await wireBytes(demo.proxy.origin, `/kassa/${file}`);
      brotli += bytes.br;
      gzip += bytes.gzip;
      console.log(wireLine(`kassa/${file}`, bytes));
    }
    console.log(
      `the on-ramp with what it brings: ${kb(brotli)} Brotli, ${kb(gzip)} gzip on the wire (budget ${kb(BUDGET)} gzip)${gzip > BUDGET ? '  OVER BUDGET' : ''}`,
    );
    for (const file of chunks.filter((chunk) => /^onramp-(de|fr|es|nl)-[\w-]+\.js$/.test(chunk)))
      console.log(
        `when first used: ${wireLine(`kassa/${file}`, await wireBytes(demo.proxy.origin, `/kassa/${file}`))}`,
      );

    const shown: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.addInitScript({ content: PROBE });
      await page.goto(`${demo.shop.origin}/buy`);
      await page.locator('kassa-onramp[phase="connect"]').waitFor();
      shown.push(
        await page.evaluate((script) => {
          const entry = performance.getEntriesByName(script)[0] as PerformanceResourceTiming;
          return (window as unknown as { kassaConnectAt: number }).kassaConnectAt - entry.responseEnd;
        }, `${demo.proxy.origin}/kassa.js`),
      );
      await context.close();
    }
    console.log(
      `kassa.js loaded -> on-ramp ready to connect (its chunk, the offer): median ${ms(median(shown))}, max ${ms(Math.max(...shown))} over ${RUNS} cold page loads`,
    );
  } finally {
    await browser.close();
    await demo.stop();
  }
}
