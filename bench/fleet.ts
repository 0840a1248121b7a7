/**
 * The proxy on each store, side by side in one run: SQLite (one process), and Redis and PostgreSQL
 * for one and for three instances. For each: status reads per second, the webhook-to-subscriber
 * latency with 3,000 SSE subscribers spread over the instances (target p95 under 150 ms on a fleet),
 * and the operator's CSV export of 100,000 payments. Each instance is its own process, as deployed;
 * they all share this machine's cores (and the load generator's, and the store's), so the figures
 * show what the shared store and its notifications cost, not what more machines add.
 */
import { startFleet, type FleetStore } from '../test/support/fleet.ts';
import { describeExport, measureExport } from './load/export.ts';
import { measureFanOut } from './load/fan-out.ts';
import { runWorker, type ReadsResult } from './load/run-worker.ts';
import { ms } from './stats.ts';

const READ_SECONDS = Number(process.env.KASSA_BENCH_READ_SECONDS ?? 5);
const SUBSCRIBERS = 3_000;
const READ_CLIENTS = 32;
const EXPORTED = Number(process.env.KASSA_BENCH_EXPORTED ?? 100_000);

const RUNS: ReadonlyArray<{ store: FleetStore; name: string; instances: number }> = [
  { store: 'sqlite', name: 'SQLite', instances: 1 },
  { store: 'redis', name: 'Redis', instances: 1 },
  { store: 'redis', name: 'Redis', instances: 3 },
  { store: 'postgres', name: 'PostgreSQL', instances: 1 },
  { store: 'postgres', name: 'PostgreSQL', instances: 3 },
];

export default async function benchFleet(): Promise<void> {
  const only = process.env.KASSA_BENCH_STORES?.split(',');
  for (const { store, name, instances } of RUNS.filter((run) => !only || only.includes(run.store))) {
    const fleet = await startFleet({ instances, logLevel: 'warn', processes: true, store });
    try {
      const all = Array.from({ length: instances }, (_, index) => fleet.origin(index));
      const reading = (await fleet.pay(0, await fleet.checkout())).body;
      const reads = await runWorker<ReadsResult>({
        kind: 'reads',
        urls: all.map((origin) => `${origin}/api/payments/status/${reading.statusToken}`),
        clients: READ_CLIENTS,
        durationMs: READ_SECONDS * 1000,
      });
      const watched = (await fleet.pay(0, await fleet.checkout())).body;
      const fanOut = await measureFanOut({
        control: fleet.sandbox.control,
        transactionId: watched.transactionId,
        streamUrls: all.map((origin) => `${origin}/api/payments/status/${watched.statusToken}/events`),
        subscribers: SUBSCRIBERS,
        watchMs: 1_000,
      });
      const exported = await measureExport({
        origin: () => fleet.origin(0),
        env: fleet.env,
        payments: EXPORTED,
        ...(store === 'sqlite'
          ? { seedWhileStopped: { stop: () => fleet.kill(0), start: () => fleet.revive(0) } }
          : {}),
      });
      console.log(
        `${name}, ${instances} instance${instances > 1 ? 's' : ''}: status reads ${(reads.answers / reads.seconds).toFixed(0)}/s (${READ_CLIENTS} clients, ${reads.errors} errors); ` +
          `${SUBSCRIBERS} subscribers, webhook at instance 1 -> event first ${ms(fanOut.first)}, p50 ${ms(fanOut.p50)}, p95 ${ms(fanOut.p95)}, last ${ms(fanOut.last)} (${fanOut.missed} missed${instances === 3 ? '; target p95 < 150 ms' : ''}); ` +
          describeExport(exported),
      );
    } finally {
      await fleet.stop();
    }
  }
}
