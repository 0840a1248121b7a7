/**
 * The operator's figures, on one proxy instance (SQLite): what /metrics costs, status reads per second
 * with request metrics on and a scrape every second, against a proxy with request metrics off (target:
 * under 5 % fewer). The CSV export of 100,000 payments is measured on every store in fleet.ts.
 */
import { startStack, type Stack } from '../test/support/stack.ts';
import { runWorker, type ReadsResult } from './load/run-worker.ts';

/** Each proxy's 12 rounds and its warm-up stay inside its limiter's 1,000,000 reads a minute (13 s at up to 75,000 a second). */
const READ_SECONDS = Number(process.env.KASSA_BENCH_READ_SECONDS ?? 1);
const READ_CLIENTS = 32;
const ROUNDS = 12;

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

/** Milliseconds per call of `work`, over `times` calls. */
function timeEach(times: number, work: () => void): number {
  const started = performance.now();
  for (let i = 0; i < times; i++) work();
  return (performance.now() - started) / times;
}

const percent = (fraction: number) => `${(fraction * 100).toFixed(1)} %`;

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
    // Each pair of neighbouring rounds gives a ratio; their median shrugs off a burst of other work.
    const ratios = rates.on.map((rate, round) => rate / rates.off[round]!).sort((a, b) => a - b);
    const measured = 1 - ratios[Math.floor(ratios.length / 2)]!;
    // The same cost from its parts, which the machine's noise does not blur: counting one request,
    // and a scrape a second, against the time one read takes.
    const counting = timeEach(1_000_000, () =>
      on.proxy.services.metrics.httpRequest('/api/payments/status/:statusToken', 'GET', 200, 0.0004),
    );
    const scrapes: number[] = [];
    for (let i = 0; i < 10; i++) {
      const started = performance.now();
      await on.operator('/metrics');
      scrapes.push(performance.now() - started);
    }
    const scrapeMs = scrapes.sort((a, b) => a - b)[5]!;
    const readMs = 1_000 / (rates.off.reduce((sum, rate) => sum + rate, 0) / ROUNDS);
    const fromParts = counting / readMs + scrapeMs / 1_000;
    console.log(
      `/metrics overhead on status reads: ${percent(measured)} measured side by side (median of ${ROUNDS} alternating pairs of ${READ_SECONDS} s, pairs from ${percent(1 - ratios.at(-1)!)} to ${percent(1 - ratios[0]!)}); ` +
        `from its parts ${percent(fromParts)}: counting a request ${(counting * 1e6).toFixed(0)} ns against ${(readMs * 1e3).toFixed(0)} µs a read, a scrape ${scrapeMs.toFixed(1)} ms a second (target < 5 %; ${READ_CLIENTS} clients, rate limit on)`,
    );
  } finally {
    await on.stop();
    await off.stop();
  }
}

export default async function benchOperations(): Promise<void> {
  await metricsOverhead();
}
