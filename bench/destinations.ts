/**
 * Event destinations, on one proxy instance (SQLite, or the store KASSA_TEST_STORE names): how long
 * an event takes from being written to reaching a receiver (its `timestamp` to its arrival), p50 and
 * p95 over 300 payments (600 events, in batches of ten payments, each batch once the previous one's
 * events arrived), with one destination, then with three of which one fails every attempt (503) and
 * one is slow (answers after 5 s). Target: the healthy destination's p95 within 10 % of the single one's.
 */
import { localCoordination } from '../proxy/state/local-coordination.ts';
import { startStack, type Stack } from '../test/support/stack.ts';
import { startReceiver, type ReceivedRequest } from '../test/support/webhook-receiver.ts';
import { ms, percentile } from './stats.ts';

const PAYMENTS = 300;

/** Arrival minus the event's timestamp, per event, of a receiver's 2xx answers. */
const latencyOf = (requests: readonly ReceivedRequest[]) =>
  requests.map((request) => request.at - Date.parse((JSON.parse(request.body) as { timestamp: string }).timestamp));

/** Batches of ten payments, each once the last one's events arrived: latency, not a backlog, is measured. */
async function completePayments(stack: Stack, arrived: () => number): Promise<void> {
  for (let batch = 0; batch < PAYMENTS / 10; batch++) {
    const ids = await Promise.all(
      Array.from({ length: 10 }, async () => {
        const { transactionId } = (await stack.pay(await stack.checkout())).body as { transactionId: string };
        return transactionId;
      }),
    );
    await Promise.all(ids.map((id) => stack.control(`/payments/${id}/outcome`, { status: 'COMPLETED' })));
    const deadline = Date.now() + 30_000;
    while (arrived() < (batch + 1) * 20 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  }
}

async function run(label: string, extra: Array<{ status: number; delayMs?: number }>): Promise<number> {
  const healthy = await startReceiver();
  const others = await Promise.all(
    extra.map((answer) => startReceiver({ respond: () => ({ status: answer.status, delayMs: answer.delayMs }) })),
  );
  const stack = await startStack({
    env: { KASSA_LOG_LEVEL: 'error' },
    sandbox: { paymentsPerMinute: 100_000 },
    proxy: { coordination: localCoordination(100_000), eventPollMs: 1_000 },
  });
  try {
    for (const receiver of [healthy, ...others]) {
      const added = await stack.operator('/api/event-destinations', { body: { url: receiver.url } });
      if (added.status !== 201) throw new Error(`destination: ${added.status} ${added.text}`);
    }
    await completePayments(stack, () => healthy.received.length);
    const latencies = latencyOf(healthy.received);
    const p95 = percentile(latencies, 95);
    console.log(
      `event written → at the healthy destination, ${label} (${latencies.length} of ${PAYMENTS * 2} events): p50 ${ms(percentile(latencies, 50))}, p95 ${ms(p95)}, max ${ms(Math.max(...latencies))}`,
    );
    return p95;
  } finally {
    await stack.stop();
    await Promise.all([healthy, ...others].map((receiver) => receiver.close()));
  }
}

export default async function destinationsBench(): Promise<void> {
  const one = await run('one destination', []);
  const three = await run('three destinations, one failing (503), one slow (5 s)', [
    { status: 503 },
    { status: 200, delayMs: 5_000 },
  ]);
  const change = ((three - one) / one) * 100;
  console.log(
    `healthy destination's p95 with a failing and a slow one beside it: ${change >= 0 ? '+' : ''}${change.toFixed(1)} % of one destination's (target within 10 %)`,
  );
}
