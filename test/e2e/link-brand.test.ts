/**
 * The merchant's look on a link's page in Chromium (KASSA_MERCHANT_NAME, _LOGO and _COLOR): the logo
 * (an SVG file the proxy inlines) shown under the page's CSP, named by the merchant's name, in a box
 * reserved before it decodes, the page recording no layout shift; the accent on the checkout's button
 * with text of AA contrast, and a focus ring that stays visible in each theme; axe-clean, light and dark.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { brotliCompressSync } from 'node:zlib';
import type { Browser, Page, Response } from 'playwright';
import { contrast } from '../../proxy/links/link-brand.ts';
import { axeViolations } from '../support/axe.ts';
import { launchChromium, waitForPhase, watchProblems } from '../support/browser.ts';
import { startShopStack, type ShopStack } from '../support/shop-stack.ts';

const NAME = 'Café Lumen';
/** A yellow too light for a focus ring on the white card: the ring takes the text's colour there. */
const ACCENT = '#ffcc00';
const LOGO = `<svg xmlns="http://www.w3.org/2000/svg" width="160" height="40" viewBox="0 0 160 40"><rect width="160" height="40" rx="6" fill="${ACCENT}"/><text x="10" y="27" font-size="20">Lumen</text></svg>`;

/** `rgb(255, 204, 0)` as `#ffcc00`. */
const hexOf = (rgb: string) =>
  `#${(rgb.match(/\d+/g) ?? [])
    .slice(0, 3)
    .map((n) => Number(n).toString(16).padStart(2, '0'))
    .join('')}`;

/** The budget for everything a link's page loads, Brotli-coded: its HTML, styles, scripts and the logo. */
const PAGE_BUDGET = 25 * 1024;

/** Records every layout shift from the first paint (a buffered observer, before the page's own scripts). */
function recordShifts(): void {
  const shifts: number[] = [];
  Object.assign(window, { kassaShifts: shifts });
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries() as Array<PerformanceEntry & { value: number }>) shifts.push(entry.value);
  }).observe({ type: 'layout-shift', buffered: true });
}

describe('e2e: the merchant’s name, logo and colour on a link’s page', () => {
  const dir = mkdtempSync(join(tmpdir(), 'kassa-brand-'));
  let env: ShopStack;
  let browser: Browser;
  let url: string;

  before(async () => {
    writeFileSync(join(dir, 'logo.svg'), LOGO);
    [env, browser] = await Promise.all([
      startShopStack({
        settlementMs: 0,
        env: { KASSA_MERCHANT_NAME: NAME, KASSA_MERCHANT_LOGO: join(dir, 'logo.svg'), KASSA_MERCHANT_COLOR: ACCENT },
      }),
      launchChromium(),
    ]);
    const made = await env.stack.merchant('/api/links', {
      body: { title: 'Flat white', amount: '3.80', currencyCode: 'EUR', reference: 'CAFE-{n}' },
    });
    assert.equal(made.status, 201, made.text);
    url = (made.body as { url: string }).url;
  });
  after(async () => {
    await browser?.close();
    await env?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** The checkout's "Pay by bank" button, its colours as drawn. */
  const button = (page: Page) =>
    page
      .locator('kassa-checkout [part~="button"]')
      .first()
      .evaluate((element) => {
        const style = getComputedStyle(element);
        return { background: style.backgroundColor, text: style.color };
      });

  for (const theme of ['light', 'dark'] as const)
    it(`${theme}: the logo named by the merchant, in its reserved box, no layout shift, the accent on the button, axe-clean`, async () => {
      const context = await browser.newContext({ colorScheme: theme, locale: 'en-GB' });
      const page = await context.newPage();
      const problems = watchProblems(page);
      await page.addInitScript(recordShifts);
      const answer = await page.goto(url);
      assert.match(answer!.headers()['content-security-policy']!, /img-src 'self' data:/);
      await waitForPhase(page, 'ready');

      const logo = page.getByRole('img', { name: NAME });
      assert.equal(await logo.count(), 1, 'the logo is named by the merchant’s name');
      const drawn = await logo.evaluate((image: HTMLImageElement) => {
        const box = image.getBoundingClientRect();
        return { complete: image.complete, natural: image.naturalWidth, width: box.width, height: box.height };
      });
      assert.deepEqual(drawn, { complete: true, natural: 160, width: 192, height: 48 }, 'drawn under the CSP');
      assert.equal(await page.locator('meta[property="og:site_name"]').getAttribute('content'), NAME);

      const colours = await button(page);
      assert.equal(hexOf(colours.background), ACCENT);
      assert.equal(hexOf(colours.text), '#000000', 'black on yellow');
      assert.ok(contrast(hexOf(colours.background), hexOf(colours.text)) >= 4.5);
      const strip = await page.locator('main').evaluate((main) => getComputedStyle(main).borderTopColor);
      assert.equal(hexOf(strip), ACCENT);

      // The focus ring: the yellow on the white card is too faint (1.6:1), so the text's colour there.
      await page.keyboard.press('Tab');
      const ring = await page.evaluate(() => {
        let focused = document.activeElement;
        while (focused?.shadowRoot?.activeElement) focused = focused.shadowRoot.activeElement;
        return focused ? getComputedStyle(focused).outlineColor : '';
      });
      assert.equal(hexOf(ring), theme === 'light' ? '#1d2433' : ACCENT);

      const shifts = await page.evaluate(() => (window as unknown as { kassaShifts: number[] }).kassaShifts);
      assert.deepEqual(shifts, [], 'no layout shift');
      assert.deepEqual(await axeViolations(page, `the branded link page, ${theme}`), []);
      assert.deepEqual(problems, []);
      await context.close();
    });

  it(`the branded page, everything it loads, weighs at most ${PAGE_BUDGET / 1024} KB coded with Brotli`, async (t) => {
    const page = await browser.newPage();
    // Every answer until the page is ready and the network quiet; each body read once the page is done
    // loading (read while it loads, an answer coming late would be read after the page closed).
    const loaded: Response[] = [];
    const record = (response: Response) => void loaded.push(response);
    page.on('response', record);
    await page.goto(url);
    await waitForPhase(page, 'ready');
    await page.waitForLoadState('networkidle');
    page.off('response', record);
    const sizes = await Promise.all(
      loaded.map(async (response) => [response.url(), brotliCompressSync(await response.body()).length] as const),
    );
    const total = sizes.reduce((sum, [, size]) => sum + size, 0);
    t.diagnostic(`link page on the wire (Brotli): ${total} bytes in ${sizes.length} answers`);
    assert.ok(
      sizes.some(([loadedUrl]) => loadedUrl.endsWith('/kassa.js')),
      'kassa.js counted',
    );
    assert.ok(total <= PAGE_BUDGET, `${total} bytes: ${JSON.stringify(sizes)}`);
    await page.close();
  });

  it('a page that takes no payment carries the name and colour too (a paused link)', async () => {
    const code = url.split('/').pop()!;
    assert.equal((await env.stack.merchant(`/api/links/${code}/pause`, { method: 'POST' })).status, 200);
    const page = await browser.newPage();
    await page.goto(url);
    await page.getByRole('heading', { name: 'This link is paused' }).waitFor();
    await page.getByRole('img', { name: NAME }).waitFor();
    assert.deepEqual(await axeViolations(page, 'the branded paused page'), []);
    await page.close();
  });
});
