/**
 * A payment link's page, `/l/<code>`, as a customer opening it from a chat gets it:
 * - bytes on the wire: the page and every script, style and image it loads until it is ready to pay,
 *   each asked as browsers ask (Brotli, else gzip) and counted as sent (target: 25 KB in all);
 * - Lighthouse's mobile preset: performance and cumulative layout shift (targets 100 and 0.00);
 * - link opened → bank page shown, with a bank that answers at once: the customer's press of "Pay by
 *   bank" is not counted (median over a few openings; target under a second).
 */
import { ensureWidgetBuilt } from '../demo/widget-build.ts';
import { launchChromium, waitForPhase } from '../test/support/browser.ts';
import { rawGet } from '../test/support/http.ts';
import { auditPages } from '../test/support/lighthouse.ts';
import { startShopStack } from '../test/support/shop-stack.ts';
import { median, ms } from './stats.ts';
import { kb } from './wire.ts';

const OPENINGS = Number(process.env.KASSA_BENCH_LINK_OPENINGS ?? 10);
const LIGHTHOUSE_RUNS = Number(process.env.KASSA_BENCH_LIGHTHOUSE_RUNS ?? 3);
const BYTES_TARGET = 25 * 1024;
/** What the page loads that counts as its weight (its API calls are the payment's, not the page's). */
const WEIGHED = new Set(['document', 'script', 'stylesheet', 'image', 'font']);

/** A body's bytes as the proxy sends it to a browser asking for Brotli or gzip. */
async function sentBytes(url: string): Promise<{ bytes: number; coding: string }> {
  const answer = await rawGet(url, { 'Accept-Encoding': 'br, gzip' });
  if (answer.status !== 200) throw new Error(`${url}: ${answer.status}`);
  return { bytes: answer.body.length, coding: String(answer.headers['content-encoding'] ?? 'identity') };
}

export default async function benchLinks(): Promise<void> {
  ensureWidgetBuilt();
  // Every opening makes a checkout: the proxy's per-client limits are off for this.
  const env = await startShopStack({ settlementMs: 0, env: { KASSA_CREATE_RATE_LIMIT: '0', KASSA_RATE_LIMIT: '0' } });
  const browser = await launchChromium();
  try {
    const made = await env.stack.merchant('/api/links', {
      body: {
        title: 'Piano lesson',
        description: 'One hour, Thursdays at 17:00',
        amount: '45.00',
        currencyCode: 'EUR',
        reference: 'LESSON-{n}',
      },
    });
    if (made.status !== 201) throw new Error(`making the link: ${made.status} ${made.text}`);
    const { url } = made.body as { url: string };

    // What the page loads until it is ready to pay, then each of those as sent with Brotli.
    const context = await browser.newContext();
    const page = await context.newPage();
    const loaded: string[] = [];
    page.on('request', (request) => {
      if (WEIGHED.has(request.resourceType()) && request.method() === 'GET') loaded.push(request.url());
    });
    await page.goto(url);
    await waitForPhase(page, 'ready');
    await page.waitForLoadState('networkidle');
    await context.close();
    let total = 0;
    const parts: string[] = [];
    for (const resource of [...new Set(loaded)]) {
      const { bytes, coding } = await sentBytes(resource);
      total += bytes;
      parts.push(`${new URL(resource).pathname.replace(/^\/l\/[^/]+$/, '/l/<code>')} ${kb(bytes)} ${coding}`);
    }
    console.log(
      `/l/<code> on the wire: ${kb(total)} in all (target ${kb(BYTES_TARGET)})${total > BYTES_TARGET ? '  OVER TARGET' : ''}: ${parts.join(', ')}`,
    );

    const audits = [];
    for (let run = 0; run < LIGHTHOUSE_RUNS; run++) audits.push(...(await auditPages([url])));
    const scores = audits.map((audit) => audit.performance);
    const cls = Math.max(...audits.map((audit) => audit.cumulativeLayoutShift));
    console.log(
      `Lighthouse (mobile) /l/<code>: performance ${median(scores)} (runs: ${scores.join(', ')}; target 100), cumulative layout shift ${cls.toFixed(3)} (target 0.00), accessibility ${audits[0]!.accessibility}`,
    );

    // Opened → ready to pay (the checkout's phase, noted by the page itself), then pressed → the
    // bank's page painted (its first contentful paint, from its navigation's start), by the browser's clocks.
    const toBank: number[] = [];
    for (let opening = 0; opening < OPENINGS; opening++) {
      const customer = await browser.newContext();
      await customer.addInitScript(() => {
        new MutationObserver((_, observer) => {
          if (!document.querySelector('kassa-checkout[phase="ready"]')) return;
          (window as unknown as { readyAt: number }).readyAt = performance.now();
          observer.disconnect();
        }).observe(document, { subtree: true, attributes: true, attributeFilter: ['phase'], childList: true });
      });
      const tab = await customer.newPage();
      await tab.goto(url);
      await waitForPhase(tab, 'ready');
      const ready = await tab.evaluate(() => (window as unknown as { readyAt: number }).readyAt);
      await tab.getByRole('button', { name: 'Pay by bank' }).click();
      await tab.getByRole('button', { name: 'Authorise payment' }).waitFor();
      const painted = await tab.evaluate(
        () => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? performance.now(),
      );
      toBank.push(ready + painted);
      await customer.close();
    }
    console.log(
      `link opened -> bank page shown (the press not counted): median ${ms(median(toBank))}, max ${ms(Math.max(...toBank))} over ${OPENINGS} openings (target under 1 s)${median(toBank) >= 1000 ? '  OVER TARGET' : ''}`,
    );
  } finally {
    await browser.close();
    await env.stop();
  }
}
