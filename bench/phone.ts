/**
 * Paying with the phone: the QR code's chunk (with the chunk it shares) on the wire (Brotli; kassa.js's
 * figures are bench/widget.ts's), and, over 50 payments on the demo shop with a bank that settles at once, the time from the
 * phone authorising at the bank to the desktop showing the receipt (p50, p95; target p95 < 300 ms).
 * The desktop is a browser context on the demo's /donate page, the phone an emulated Pixel 7; the
 * phone authorises a second after its bank page is shown, as a customer at the earliest would.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { devices } from 'playwright';
import { ensureWidgetBuilt, WIDGET_BUNDLE } from '../demo/widget-build.ts';
import { launchChromium } from '../test/support/browser.ts';
import { startShopStack } from '../test/support/shop-stack.ts';
import { authoriseAtBank } from './bank-authorisation.ts';
import { ms, percentile } from './stats.ts';
import { kb, wireBytes } from './wire.ts';

const PAYMENTS = Number(process.env.KASSA_BENCH_PAYMENTS ?? 50);

/** A chunk and the chunks it imports, as the proxy at `origin` sends them with Brotli, in bytes. */
async function chunkWeight(origin: string, dir: string, name: string, seen = new Set<string>()): Promise<number> {
  if (seen.has(name)) return 0;
  seen.add(name);
  const shared = [...readFileSync(join(dir, name), 'utf8').matchAll(/from\s*"\.\/([\w.-]+\.js)"/g)].map((m) => m[1]!);
  let weight = (await wireBytes(origin, `/kassa/${name}`)).br;
  for (const chunk of shared) weight += await chunkWeight(origin, dir, chunk, seen);
  return weight;
}

export default async function benchPhone(): Promise<void> {
  ensureWidgetBuilt();
  const dir = join(WIDGET_BUNDLE, '..', 'kassa');
  const qr = readdirSync(dir).find((name) => name.startsWith('phone-handoff-') && name.endsWith('.js'))!;

  // 50 payments in a row from one address: the proxy's per-client limits are off for this.
  const env = await startShopStack({ settlementMs: 0, env: { KASSA_CREATE_RATE_LIMIT: '0', KASSA_RATE_LIMIT: '0' } });
  const browser = await launchChromium();
  const latencies: number[] = [];
  try {
    const weight = await chunkWeight(env.stack.proxy.origin, dir, qr);
    console.log(`QR code chunk (${qr} and what it imports): ${kb(weight)} Brotli on the wire (target 4 KB)`);
    for (let run = 0; run < PAYMENTS; run++) {
      const desktop = await browser.newContext();
      const page = await desktop.newPage();
      await page.goto(`${env.shop.origin}/donate`);
      const element = page.locator('kassa-checkout');
      await element.locator('[part~="amount-input"]').fill(`${run + 1}`);
      await page.getByRole('button', { name: 'Pay with your phone' }).click();
      const url = (await element.locator('[part~="handoff-url"]').textContent())!.trim();
      // The desktop notes when the receipt appears, by the same clock as this process.
      await page.evaluate(() => {
        const host = document.querySelector('kassa-checkout')!;
        new MutationObserver((_, observer) => {
          if (!host.shadowRoot!.querySelector('[part~="receipt"]')) return;
          (window as unknown as { receiptAt: number }).receiptAt = Date.now();
          observer.disconnect();
        }).observe(host.shadowRoot!, { childList: true, subtree: true });
      });
      // A phone of its own each time, as each customer has: one phone context for every payment
      // gathered pages that Chromium at times would not close.
      const phone = await browser.newContext({ ...devices['Pixel 7'] });
      const mobile = await phone.newPage();
      await mobile.goto(url);
      const authorisedAt = await authoriseAtBank(mobile);
      await element.locator('[part~="receipt"]').waitFor();
      const receiptAt = await page.evaluate(() => (window as unknown as { receiptAt: number }).receiptAt);
      latencies.push(Math.round(receiptAt - authorisedAt));
      if (process.env.KASSA_BENCH_VERBOSE) console.log(`payment ${run + 1}: ${receiptAt - authorisedAt} ms`);
      await phone.close();
      await desktop.close();
    }
    const p95 = percentile(latencies, 95);
    console.log(
      `phone authorised -> desktop receipt: p50 ${ms(percentile(latencies, 50))}, p95 ${ms(p95)}, max ${ms(Math.max(...latencies))} over ${PAYMENTS} payments (target p95 < 300 ms)${p95 >= 300 ? '  OVER TARGET' : ''}`,
    );
  } finally {
    await browser.close();
    await env.stop();
  }
}
