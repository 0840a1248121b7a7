/**
 * The proxy on Redis, for one and for three instances in the same run: status reads per
 * second, and the webhook-to-subscriber latency with 3,000 SSE subscribers spread over the instances.
 * Each instance is its own process, as deployed; they all share this machine's cores (and the load
 * generator's), so the figures show what the shared store and pub/sub cost, not what more machines add.
 */
import { startFleet } from '../test/support/fleet.ts';
import { measureFanOut } from './load/fan-out.ts';
import { runWorker, type ReadsResult } from './load/run-worker.ts';
import { ms } from './stats.ts';

const READ_SECONDS = Number(process.env.KASSA_BENCH_READ_SECONDS ?? 5);
const SUBSCRIBERS = 3_000;
const READ_CLIENTS = 32;

export default async function benchFleet(): Promise<void> {
  for (const instances of [1, 3]) {
    const fleet = await startFleet({ instances, logLevel: 'warn', processes: true });
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
      console.log(
        `${instances} instance${instances > 1 ? 's' : ''} on Redis: status reads ${(reads.answers / reads.seconds).toFixed(0)}/s (${READ_CLIENTS} clients, ${reads.errors} errors); ` +
          `${SUBSCRIBERS} subscribers, webhook at instance 1 -> event first ${ms(fanOut.first)}, p50 ${ms(fanOut.p50)}, p95 ${ms(fanOut.p95)}, last ${ms(fanOut.last)} (${fanOut.missed} missed${instances === 3 ? '; target p95 < 150 ms' : ''})`,
      );
    } finally {
      await fleet.stop();
    }
  }
}
