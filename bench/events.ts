/**
 * The merchant's events, on one proxy instance (SQLite):
 * - latency: the emulator's webhook for a completed payment in, the signed `payment.completed` out at
 *   the merchant's endpoint; p50 and p95 over 1,000 payments (target p95 under 100 ms);
 * - durability: 10,000 events (checkouts expiring) to an endpoint that fails half its answers at
 *   random: how many are lost (target 0) and the time until all are delivered. The retry schedule is
 *   scaled down (5 s becomes 5 ms) so that the run measures the outbox, not the waiting.
 */
import { randomBytes } from 'node:crypto';
import { localCoordination } from '../proxy/state/local-coordination.ts';
import { GIVE_UP_AFTER_MS, retrySchedule } from '../proxy/events/retry-schedule.ts';
import { startStack } from '../test/support/stack.ts';
import { startReceiver } from '../test/support/webhook-receiver.ts';
import { ms, percentile } from './stats.ts';

const PAYMENTS = 1_000;
const EVENTS = 10_000;
const secret = () => `whsec_${randomBytes(32).toString('base64')}`;

async function latency(): Promise<void> {
  const arrived = new Map<string, number>();
  const receiver = await startReceiver({
    respond: (request) => {
      const event = JSON.parse(request.body) as { type: string; data: { transactionId: string } };
      if (event.type === 'payment.completed') arrived.set(event.data.transactionId, request.at);
      return 200;
    },
  });
  // A merchant whose payment quota covers the run: the figure is the events' path, not the quota's.
  const stack = await startStack({
    env: { KASSA_EVENTS_URL: receiver.url, KASSA_EVENTS_SECRET: secret(), KASSA_LOG_LEVEL: 'warn' },
    sandbox: { paymentsPerMinute: 100_000 },
    proxy: { coordination: localCoordination(100_000) },
  });
  const hookIn = new Map<string, number>();
  const original = stack.proxy.services.refresher.hinted.bind(stack.proxy.services.refresher);
  // The moment a webhook reaches the proxy's route, which asks the refresher to re-read at once; the
  // bank's steps each send one, and the last before the event is the one that carried the completion.
  stack.proxy.services.refresher.hinted = (payment) => {
    if (!arrived.has(payment.transactionId)) hookIn.set(payment.transactionId, Date.now());
    return original(payment);
  };
  try {
    const latencies: number[] = [];
    for (let batch = 0; batch < PAYMENTS / 10; batch++) {
      const ids = await Promise.all(
        Array.from({ length: 10 }, async () => {
          const { transactionId } = (await stack.pay(await stack.checkout())).body as { transactionId: string };
          return transactionId;
        }),
      );
      hookIn.clear();
      await Promise.all(ids.map((id) => stack.control(`/payments/${id}/outcome`, { status: 'COMPLETED' })));
      const deadline = Date.now() + 10_000;
      while (ids.some((id) => !arrived.has(id)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
      for (const id of ids) {
        const from = hookIn.get(id);
        const to = arrived.get(id);
        if (from !== undefined && to !== undefined) latencies.push(to - from);
      }
    }
    console.log(
      `webhook in → payment.completed out (${latencies.length} of ${PAYMENTS} payments): p50 ${ms(percentile(latencies, 50))}, p95 ${ms(percentile(latencies, 95))}, max ${ms(Math.max(...latencies))} (target p95 < 100 ms)`,
    );
  } finally {
    await stack.stop();
    await receiver.close();
  }
}

async function durability(): Promise<void> {
  const delivered = new Set<string>();
  let requests = 0;
  const receiver = await startReceiver({
    respond: (request) => {
      requests++;
      if (Math.random() < 0.5) return 503;
      delivered.add(String(request.headers['webhook-id']));
      return 200;
    },
  });
  const stack = await startStack({
    env: { KASSA_EVENTS_URL: receiver.url, KASSA_EVENTS_SECRET: secret(), KASSA_LOG_LEVEL: 'error' },
    // Delays shrunk a thousandfold, the three-day horizon kept: nothing is given up during the run.
    proxy: {
      eventRetrySchedule: { ...retrySchedule(0.001), giveUpAfterMs: GIVE_UP_AFTER_MS },
      eventPollMs: 20,
      eventSweepMs: 10,
    },
  });
  try {
    const now = Date.now();
    const started = performance.now();
    const store = stack.proxy.services.store;
    for (let i = 0; i < EVENTS; i++)
      await store.insertCheckout({
        checkoutId: `chk_bench${i}_${randomBytes(6).toString('hex')}`,
        amount: '1.00',
        currencyCode: 'EUR',
        reference: `BENCH-${i}`,
        metadata: null,
        createdAt: now - 120_000,
        expiresAt: now - 1_000,
        currentAttempt: null,
      });
    const deadline = Date.now() + 600_000;
    while (delivered.size < EVENTS && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const seconds = (performance.now() - started) / 1000;
    const listed = await stack.operator('/api/events?status=delivered&limit=1');
    console.log(
      `${EVENTS} events, receiver failing 50% at random: ${EVENTS - delivered.size} lost, all delivered in ${seconds.toFixed(1)} s (${requests} requests; retries scaled ×0.001; outbox answers ${listed.status})`,
    );
  } finally {
    await stack.stop();
    await receiver.close();
  }
}

export default async function eventsBench(): Promise<void> {
  await latency();
  await durability();
}
