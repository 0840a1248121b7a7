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
const READ_SECONDS = Number(process.env.KASSA_BENCH_READ_SECONDS ?? 5);
const READ_CLIENTS = 32;
const ROUNDS = 4;

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

async function readRate(stack: Stack, scrape: boolean): Promise<number> {
  const payment = (await stack.pay(await stack.checkout())).body as { statusToken: string };
  const url = `${stack.proxy.origin}/api/payments/status/${payment.statusToken}`;
  // A second first, so that neither side is measured before the JIT has seen it.
  await runWorker<ReadsResult>({ kind: 'reads', clients: READ_CLIENTS, durationMs: 1_000, urls: [url] });
  const scraper = scrape ? setInterval(() => void stack.operator('/metrics').catch(() => undefined), 1_000) : undefined;
  try {
    const result = await runWorker<ReadsResult>({
      kind: 'reads',
      clients: READ_CLIENTS,
      durationMs: READ_SECONDS * 1000,
      urls: [url],
    });
    return result.answers / result.seconds;
  } finally {
    clearInterval(scraper);
  }
}

async function metricsOverhead(): Promise<void> {
  const rates: Record<'on' | 'off', number[]> = { on: [], off: [] };
  // Alternating runs, so that a slow moment of the machine does not fall on one side only.
  for (let round = 0; round < ROUNDS; round++) {
    for (const mode of round % 2 ? (['on', 'off'] as const) : (['off', 'on'] as const)) {
      const stack = await startStack({
        env: { KASSA_LOG_LEVEL: 'warn', KASSA_RATE_LIMIT: '1000000' },
        proxy: { httpMetrics: mode === 'on' },
      });
      try {
        rates[mode].push(await readRate(stack, mode === 'on'));
      } finally {
        await stack.stop();
      }
    }
  }
  const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
  const [off, on] = [mean(rates.off), mean(rates.on)];
  console.log(
    `status reads with /metrics: ${on.toFixed(0)}/s (request metrics, a scrape every second), without: ${off.toFixed(0)}/s: ${((1 - on / off) * 100).toFixed(1)} % overhead (target < 5 %; ${READ_CLIENTS} clients, ${READ_SECONDS} s, ${ROUNDS} rounds each, rate limit on)`,
  );
}

export default async function benchOperations(): Promise<void> {
  await exportFigures();
  await metricsOverhead();
}
