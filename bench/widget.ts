/**
 * The widget's weight and speed: each script's bytes on the wire as the demo's proxy sends them
 * (Brotli, gzip, none; budgets in Brotli, what browsers take: kassa.js 11 KB with Lit, the wallet
 * panel's chunk 60 KB with the parts of ethers it uses), and in Chromium, on the demo shop's page with
 * a cold cache, the time from the script having loaded to the element's first render, and to the
 * checkout's amount shown (which includes one request to the proxy). Medians over several page loads.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { startDemo } from '../demo/demo.ts';
import { ensureWidgetBuilt, WIDGET_BUNDLE } from '../demo/widget-build.ts';
import { launchChromium } from '../test/support/browser.ts';
import { wireBytes, wireLine } from './wire.ts';

const RUNS = 15;
const BUDGETS: Array<[script: RegExp, bytes: number]> = [
  [/^kassa\.js$/, 11 * 1024],
  [/^kassa\/kassa-bridge-[\w-]+\.js$/, 60 * 1024],
];

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** Runs in the page before anything else: notes when the element's shadow root first gets content. */
function probe(): void {
  const marks: Record<string, number> = {};
  (window as unknown as { kassaMarks: Record<string, number> }).kassaMarks = marks;
  // eslint-disable-next-line @typescript-eslint/unbound-method -- called below with the element as `this`
  const attachShadow = Element.prototype.attachShadow;
  Element.prototype.attachShadow = function (this: Element, init: ShadowRootInit) {
    const root = attachShadow.call(this, init);
    if (this.localName === 'kassa-checkout') {
      new MutationObserver((_, observer) => {
        marks.firstRender ??= performance.now();
        observer.disconnect();
      }).observe(root, { childList: true });
      new MutationObserver(() => {
        if (this.getAttribute('phase') === 'ready') marks.ready ??= performance.now();
      }).observe(this, { attributes: true, attributeFilter: ['phase'] });
    }
    return root;
  };
}

export default async function benchWidget(): Promise<void> {
  ensureWidgetBuilt();
  const chunks = readdirSync(join(WIDGET_BUNDLE, '..', 'kassa')).filter((name) => name.endsWith('.js'));
  const demo = await startDemo({ shopPort: 0, proxyPort: 0, sandboxPort: 0 });
  const browser = await launchChromium();
  try {
    for (const script of ['kassa.js', ...chunks.sort().map((chunk) => `kassa/${chunk}`)]) {
      const budget = BUDGETS.find(([pattern]) => pattern.test(script))?.[1];
      console.log(wireLine(script, await wireBytes(demo.proxy.origin, `/${script}`), budget));
    }

    const firstRender: number[] = [];
    const ready: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.addInitScript(probe);
      await page.goto(`${demo.shop.origin}/`);
      await page.locator('kassa-checkout[phase="ready"]').waitFor();
      const { loaded, marks } = await page.evaluate((script) => {
        const entry = performance.getEntriesByName(script)[0] as PerformanceResourceTiming;
        return {
          loaded: entry.responseEnd,
          marks: (window as unknown as { kassaMarks: Record<string, number> }).kassaMarks,
        };
      }, `${demo.proxy.origin}/kassa.js`);
      firstRender.push(marks.firstRender! - loaded);
      ready.push(marks.ready! - loaded);
      await context.close();
    }
    console.log(
      `script loaded -> first render: median ${median(firstRender).toFixed(1)} ms, max ${Math.max(...firstRender).toFixed(1)} ms over ${RUNS} cold page loads`,
    );
    console.log(
      `script loaded -> amount shown (one proxy request): median ${median(ready).toFixed(1)} ms, max ${Math.max(...ready).toFixed(1)} ms`,
    );
  } finally {
    await browser.close();
    await demo.stop();
  }
}
