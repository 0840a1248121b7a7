/**
 * The on-ramp element's weight and first render: the gzipped size of its chunk in dist/widget/kassa/
 * and of what it brings with it (the modules it shares with the wallet panel; budget 20 KB), each of
 * its other languages (a chunk fetched when first used), kassa.js beside it; and in Chromium, on the
 * demo's /buy page with a cold cache, the time from kassa.js loaded to the on-ramp showing its wallets.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { startDemo } from '../demo/demo.ts';
import {
  chunkWithImports,
  ensureWidgetBuilt,
  gzippedSize,
  WIDGET_BUNDLE,
  WIDGET_CHUNKS,
} from '../demo/widget-build.ts';
import { launchChromium } from '../test/support/browser.ts';
import { median, ms } from './stats.ts';

const BUDGET = 20 * 1024;
const RUNS = 7;

/** In the page: notes when the on-ramp first shows its wallets (phase "connect"). */
const PROBE = `new MutationObserver((records, observer) => {
  if (document.querySelector('kassa-onramp[phase="connect"]')) {
    window.kassaConnectAt = performance.now();
    observer.disconnect();
  }
}).observe(document, { subtree: true, attributes: true, attributeFilter: ['phase'] });`;

const kb = (bytes: number) => `${(bytes / 1024).toFixed(2)} KB`;

export default async function benchOnrampWidget(): Promise<void> {
  ensureWidgetBuilt();
  const chunks = readdirSync(WIDGET_CHUNKS);
  const name = chunks.find((file) => /^kassa-onramp-[\w-]+\.js$/.test(file));
  if (!name)
    throw new Error('no kassa-onramp chunk in dist/widget/kassa/: is it in the ON_FIRST_USE list of widget/kassa.ts?');
  const brought = [...chunkWithImports(name)];
  const sizes = brought.map((file) => [file, gzippedSize(join(WIDGET_CHUNKS, file))] as const);
  const total = sizes.reduce((sum, [, size]) => sum + size, 0);
  console.log(`dist/widget/kassa/${name}: ${kb(sizes[0]![1])} gzipped`);
  console.log(
    `the on-ramp with what it brings (${sizes.map(([file, size]) => `${file} ${kb(size)}`).join(', ')}): ${kb(total)} gzipped (budget ${kb(BUDGET)})${total > BUDGET ? '  OVER BUDGET' : ''}`,
  );
  const languages = chunks
    .filter((file) => /^onramp-(de|fr|es|nl)-/.test(file))
    .map((file) => `${file.slice(7, 9)} ${kb(gzippedSize(join(WIDGET_CHUNKS, file)))}`);
  console.log(`its other languages, one chunk each when first used: ${languages.join(', ')} gzipped`);
  console.log(`dist/widget/kassa.js: ${kb(gzippedSize(WIDGET_BUNDLE))} gzipped`);

  const demo = await startDemo({ shopPort: 0, proxyPort: 0, sandboxPort: 0 });
  const browser = await launchChromium();
  try {
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
