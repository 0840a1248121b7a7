/**
 * The operator's figures, on one proxy instance (SQLite):
 * - the CSV export of 100,000 payments (seeded into the store): time to the last byte, and rows;
 * - what /metrics costs: status reads per second with request metrics on and a scrape every second,
 *   against a proxy with request metrics off (target: under 5 % fewer).
 */
import { http } from '../test/support/http.ts';
import { seededPayment } from '../test/support/seed-payments.ts';
import { startStack, type Stack } from '../test/support/stack.ts';
import { runWorker, type ReadsResult } from './load/run-worker.ts';

const PAYMENTS = 100_000;
const READ_SECONDS = Number(process.env.KASSA_BENCH_READ_SECONDS ?? 3);
const READ_CLIENTS = 32;
const ROUNDS = 6;

async function exportFigures(): Promise<void> {
  const stack = await startStack({ env: { KASSA_LOG_LEVEL: 'warn' } });
  try {
    const now = Date.now();
    const seeded = performance.now();
    for (let i = 0; i < PAYMENTS; i++) {
      // A thousand references, amounts 1 to 500, one a second apart: a search has something to narrow.
      const payment = seededPayment(i, `BENCH-${i % 1_000}`, now, {
        transactionId: `bench-${i}`,
        amount: `${(i % 500) + 1}.00`,
        createdAt: now - i * 1_000,
      });
      await stack.proxy.services.store.recordPayment(payment);
    }
    const seedSeconds = (performance.now() - seeded) / 1000;
    const started = performance.now();
    const answer = await fetch(`${stack.proxy.origin}/api/payments/export`, {
      headers: { Authorization: `Bearer ${stack.config.operatorToken}` },
    });
    const text = await answer.text();
    const seconds = (performance.now() - started) / 1000;
    const rows = text.split('\r\n').length - 2;
    const search = performance.now();
    await http(`${stack.proxy.origin}/api/payments?reference=BENCH-7&minAmount=100`, {
      headers: { Authorization: `Bearer ${stack.config.operatorToken}` },
    });
    console.log(
      `export of ${PAYMENTS.toLocaleString('en')} payments: ${seconds.toFixed(2)} s, ${rows.toLocaleString('en')} rows, ${(text.length / 1e6).toFixed(1)} MB (seeded in ${seedSeconds.toFixed(1)} s); a search by reference and amount: ${(performance.now() - search).toFixed(0)} ms`,
    );
  } finally {
    await stack.stop();
  }
}

/** Reads per second of one payment's status through `stack`, scraping /metrics every second when asked. */
async function readRate(stack: Stack, url: string, scrape: boolean, seconds: number): Promise<number> {
  const scraper = scrape ? setInterval(() => void stack.operator('/metrics').catch(() => undefined), 1_000) : undefined;
  try {
    const result = await runWorker<ReadsResult>({
      kind: 'reads',
      clients: READ_CLIENTS,
      durationMs: seconds * 1000,
      urls: [url],
    });
    return result.answers / result.seconds;
  } finally {
    clearInterval(scraper);
  }
}

export async function metricsOverhead(): Promise<void> {
  const env = { KASSA_LOG_LEVEL: 'warn', KASSA_RATE_LIMIT: '1000000' };
  // Two proxies side by side on one emulator, one counting requests and scraped, one not: measured in
  // alternating rounds, so that a slow moment of the machine does not fall on one side only.
  const off = await startStack({ env, proxy: { httpMetrics: false } });
  const on = await startStack({ reuseSandbox: off.sandbox, env, proxy: { httpMetrics: true } });
  try {
    const stacks = { off, on };
    const urls = { off: '', on: '' };
    for (const mode of ['off', 'on'] as const) {
      const stack = stacks[mode];
      const payment = (await stack.pay(await stack.checkout())).body as { statusToken: string };
      urls[mode] = `${stack.proxy.origin}/api/payments/status/${payment.statusToken}`;
      // A second first, so that neither side is measured before the JIT has seen it.
      await readRate(stack, urls[mode], false, 1);
    }
    const rates: Record<'on' | 'off', number[]> = { on: [], off: [] };
    for (let round = 0; round < ROUNDS; round++)
      for (const mode of round % 2 ? (['on', 'off'] as const) : (['off', 'on'] as const))
        rates[mode].push(await readRate(stacks[mode], urls[mode], mode === 'on', READ_SECONDS));
    const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
    const [rateOff, rateOn] = [mean(rates.off), mean(rates.on)];
    console.log(
      `status reads with /metrics: ${rateOn.toFixed(0)}/s (request metrics, a scrape every second), without: ${rateOff.toFixed(0)}/s: ${((1 - rateOn / rateOff) * 100).toFixed(1)} % overhead (target < 5 %; ${READ_CLIENTS} clients, ${ROUNDS} alternating rounds of ${READ_SECONDS} s each, rate limit on)`,
    );
  } finally {
    await on.stop();
    await off.stop();
  }
}

export default async function benchOperations(): Promise<void> {
  await exportFigures();
  await metricsOverhead();
}
