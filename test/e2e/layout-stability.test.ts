/**
 * The shop's page does not move as Kassa's elements load: on the demo's four pages, on a phone and
 * on a desktop, with kassa.js arriving late (so the page is painted first with the elements not yet
 * defined, as the shop's CSS rule from docs/checkout.md, docs/bridge.md and docs/onramp.md reserves
 * them), the browser records no layout shift at all, and each element keeps one height from the first
 * paint to its resting state: before it is defined, its skeleton, and the ready checkout or the
 * panel's or the on-ramp's first-run view.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { devices, type Browser, type BrowserContextOptions } from 'playwright';
import { launchChromium, waitForPhase, watchProblems } from '../support/browser.ts';
import { ONRAMP_ENV } from '../support/onramp.ts';
import { startShopStack, type ShopStack } from '../support/shop-stack.ts';

/** In the page before anything else: every layout shift, and every height each Kassa element takes. */
function recordLayout(): void {
  const record = { shifts: [] as Array<{ value: number; at: number }>, heights: [] as string[] };
  (window as unknown as { kassaLayout: typeof record }).kassaLayout = record;
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries() as Array<PerformanceEntry & { value: number; hadRecentInput: boolean }>)
      if (!entry.hadRecentInput) record.shifts.push({ value: entry.value, at: Math.round(entry.startTime) });
  }).observe({ type: 'layout-shift', buffered: true });
  const sizes = new ResizeObserver((entries) => {
    for (const { target } of entries) {
      const defined = customElements.get(target.localName) ? 'defined' : 'not defined';
      const height = target.getBoundingClientRect().height.toFixed(1);
      record.heights.push(`${target.localName} ${defined}, ${target.getAttribute('phase') ?? '-'}: ${height}`);
    }
  });
  const watched = new WeakSet<Element>();
  new MutationObserver(() => {
    for (const element of document.querySelectorAll('kassa-checkout, kassa-bridge, kassa-onramp'))
      if (!watched.has(element)) {
        watched.add(element);
        sizes.observe(element);
      }
  }).observe(document, { childList: true, subtree: true });
}

const DEVICES: Record<string, BrowserContextOptions> = {
  phone: devices['Pixel 7'],
  desktop: { viewport: { width: 1280, height: 800 } },
};

describe('e2e: no layout shift from Kassa’s elements', () => {
  let env: ShopStack;
  let browser: Browser;

  before(async () => {
    [env, browser] = await Promise.all([startShopStack({ env: ONRAMP_ENV }), launchChromium()]);
  });
  after(async () => {
    await browser.close();
    await env.stop();
  });

  for (const [device, options] of Object.entries(DEVICES)) {
    for (const [path, resting] of [
      ['/', 'ready'],
      ['/donate', 'ready'],
      ['/wallet', 'kassa-bridge'],
      ['/buy', 'kassa-onramp'],
    ] as const) {
      it(`${path} on a ${device}`, async () => {
        const context = await browser.newContext(options);
        try {
          // kassa.js late: the page is painted with the element not yet defined.
          await context.route(/\/kassa\.js$/, async (route) => {
            await sleep(500);
            await route.continue();
          });
          const page = await context.newPage();
          const problems = watchProblems(page);
          await page.addInitScript(recordLayout);
          await page.goto(`${env.shop.origin}${path}`);
          if (resting === 'ready') await waitForPhase(page, 'ready');
          else await page.locator(`${resting} [part="first-run"]`).waitFor();
          // What comes after the resting state shows: on desktops, "Pay with your phone".
          await page.waitForLoadState('networkidle');
          await sleep(300);
          const { shifts, heights } = await page.evaluate(
            () => (window as unknown as { kassaLayout: { shifts: unknown[]; heights: string[] } }).kassaLayout,
          );
          assert.ok(
            heights.some((height) => height.includes('not defined')),
            `the page was laid out before kassa.js defined the element: ${heights.join('; ')}`,
          );
          assert.equal(
            new Set(heights.map((height) => height.split(': ')[1])).size,
            1,
            `one height throughout: ${heights.join('; ')}`,
          );
          assert.deepEqual(shifts, [], `no layout shift (heights: ${heights.join('; ')})`);
          assert.deepEqual(problems, []);
        } finally {
          await context.close();
        }
      });
    }
  }
});
