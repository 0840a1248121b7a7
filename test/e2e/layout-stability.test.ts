/**
 * The shop's page does not move as Kassa's elements load: on the demo's four pages, on a phone and
 * on a desktop, the browser records no layout shift at all, and each element keeps one height from the
 * first paint to its resting state: before it is defined, its skeleton, and the ready checkout or the
 * panel's or the on-ramp's first-run view.
 *
 * What arrives late is held, not raced: kassa.js until the page has laid the element out undefined
 * (as the shop's CSS rule from docs/checkout.md, docs/bridge.md and docs/onramp.md reserves it); the
 * chunk an element fetches after its first render until the element has painted what comes before it
 * (a loaded machine's order): the on-ramp's ways without a wallet until the wallet discovery has
 * given up, the checkout's "Pay with your phone" until the checkout is ready.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { devices, type Browser, type BrowserContext, type BrowserContextOptions, type Page } from 'playwright';
import { SETTLE_MS } from '../../widget/shared/wallet/wallets.ts';
import { launchChromium, waitForPhase, watchProblems } from '../support/browser.ts';
import { ONRAMP_ENV } from '../support/onramp.ts';
import { PATIENCE_MS, patiently } from '../support/patience.ts';
import { startShopStack, type ShopStack } from '../support/shop-stack.ts';

interface LayoutRecord {
  /** Each shift: how much, when, and what moved (the node, its box before and after). */
  shifts: Array<{ value: number; at: number; moved: string[] }>;
  heights: string[];
}

type LayoutShift = PerformanceEntry & {
  value: number;
  hadRecentInput: boolean;
  sources: Array<{ node: Node | null; previousRect: DOMRectReadOnly; currentRect: DOMRectReadOnly }>;
};

/** What the page sees of the recorder. */
interface LayoutRecorder {
  kassaLayout: LayoutRecord;
  kassaShifts: PerformanceObserver;
  kassaRecordShifts: (entries: PerformanceEntryList) => void;
}

/** In the page before anything else: every layout shift, and every height each Kassa element takes. */
function recordLayout(): void {
  const record: LayoutRecord = { shifts: [], heights: [] };
  const page = window as unknown as LayoutRecorder;
  page.kassaLayout = record;
  page.kassaRecordShifts = (entries) => {
    for (const entry of entries as LayoutShift[])
      if (!entry.hadRecentInput)
        record.shifts.push({
          value: entry.value,
          at: Math.round(entry.startTime),
          moved: entry.sources.map(({ node, previousRect: a, currentRect: b }) => {
            const element = node instanceof Element ? node : node?.parentElement;
            const root = node?.getRootNode();
            const where = `${root instanceof ShadowRoot ? `${root.host.localName} ` : ''}${element?.localName ?? '(not exposed)'}`;
            const part = element?.getAttribute('part');
            return `${where}${part ? `[part=${part}]` : ''} "${(node?.textContent ?? '').trim().slice(0, 30)}": ${a.x},${a.y} ${a.width}×${a.height} → ${b.x},${b.y} ${b.width}×${b.height}`;
          }),
        });
  };
  page.kassaShifts = new PerformanceObserver((list) => page.kassaRecordShifts(list.getEntries()));
  page.kassaShifts.observe({ type: 'layout-shift', buffered: true });
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

/** What the page recorded, once the frames rendered by now are painted and their shifts reported. */
async function recorded(page: Page): Promise<LayoutRecord> {
  await painted(page);
  return page.evaluate(() => {
    const recorder = window as unknown as LayoutRecorder;
    recorder.kassaRecordShifts(recorder.kassaShifts.takeRecords());
    return recorder.kassaLayout;
  });
}

/** Two frames on: what the page changed before is laid out and painted. */
function painted(page: Page): Promise<void> {
  return page.evaluate(
    () => new Promise<void>((done) => requestAnimationFrame(() => requestAnimationFrame(() => done()))),
  );
}

/** Requests for `url` held until `release()`; `requested` settles when the page first asks. */
async function hold(context: BrowserContext, url: RegExp, what: string) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let asked!: () => void;
  const requested = new Promise<void>((resolve) => (asked = resolve));
  await context.route(url, async (route) => {
    asked();
    await released;
    await route.continue();
  });
  return { requested: () => patiently(requested, `the page's request for ${what}`), release };
}

type Held = Awaited<ReturnType<typeof hold>>;

/**
 * Each page: the chunk its element fetches after its first render, and how it reaches its resting
 * state with that chunk held until the element has painted what comes before it.
 */
const PAGES: Array<
  [
    path: string,
    late: RegExp | undefined,
    rest: (page: Page, late: Held | undefined, desktop: boolean) => Promise<void>,
  ]
> = [
  ['/', /\/kassa\/phone-handoff-[\w-]+\.js$/, readyCheckout],
  ['/donate', /\/kassa\/phone-handoff-[\w-]+\.js$/, readyCheckout],
  ['/wallet', undefined, (page) => page.locator('kassa-bridge [part="first-run"]').waitFor({ timeout: PATIENCE_MS })],
  [
    '/buy',
    /\/kassa\/outside-wallet-[\w-]+\.js$/,
    async (page, late, desktop) => {
      // The ways without a wallet (asked for once the offer came) after the wallet discovery gave up:
      // its timer started when the element connected, before this one, so it has run out.
      await late!.requested();
      await page.evaluate((ms) => new Promise((done) => setTimeout(done, ms)), SETTLE_MS);
      await painted(page);
      late!.release();
      await page.locator(`kassa-onramp [part="${desktop ? 'qr' : 'wallet-apps'}"]`).waitFor({ timeout: PATIENCE_MS });
    },
  ],
];

/** The ready checkout; on desktops "Pay with your phone" after it (phones never fetch it). */
async function readyCheckout(page: Page, late: Held | undefined, desktop: boolean): Promise<void> {
  await waitForPhase(page, 'ready');
  if (!desktop) return;
  await late!.requested();
  await painted(page);
  late!.release();
  await page.locator('kassa-checkout[phase="ready"] [part="secondary"]').waitFor({ timeout: PATIENCE_MS });
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
    for (const [path, chunk, rest] of PAGES) {
      it(`${path} on a ${device}`, async () => {
        const context = await browser.newContext(options);
        try {
          const script = await hold(context, /\/kassa\.js$/, 'kassa.js');
          const late = chunk && (await hold(context, chunk, `the chunk after ${path}'s first render`));
          const page = await context.newPage();
          const problems = watchProblems(page);
          await page.addInitScript(recordLayout);
          await page.goto(`${env.shop.origin}${path}`, { waitUntil: 'commit' });
          // kassa.js once the page has laid the element out undefined.
          await page.waitForFunction(
            () => (window as unknown as { kassaLayout: LayoutRecord }).kassaLayout.heights.length > 0,
            undefined,
            { timeout: PATIENCE_MS },
          );
          await painted(page);
          script.release();
          await rest(page, late, device === 'desktop');
          // Nothing more comes after the resting state.
          await page.waitForLoadState('networkidle');
          const { shifts, heights } = await recorded(page);
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
