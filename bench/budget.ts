/**
 * The payment budget under load, as an outside probe once found it spent: 40 customers at their bank
 * (their status streams open on pending payments) and a storm of 500 webhooks for one payment, while
 * new customers keep coming at 55 a minute. Prints the new payments created in that minute, how many
 * were told to wait (target: none, inside the payment service's 100 requests a minute), and what the
 * minute cost upstream: initiates, reads by the watchers and the follower, and reads for the storm.
 */
import { randomBytes } from 'node:crypto';
import { startSandbox } from '../sandbox/server.ts';
import { startFakePay } from '../test/support/fake-pay.ts';
import { openSse } from '../test/support/sse-client.ts';
import { startStack } from '../test/support/stack.ts';
import { webhookStorm } from '../test/support/webhook-storm.ts';

const WATCHERS = 40;
const STORM = 500;
const NEW_PER_MINUTE = 55;
/** The setup's initiates leave the budget's window (61 s) and the watchers settle into their share. */
const SETTLE_MS = Number(process.env.KASSA_BENCH_BUDGET_SETTLE_MS ?? 62_000);

export default async function benchBudget(): Promise<void> {
  const sandbox = await startSandbox({ settlementDelayMs: 0 });
  // Passes every request through to the emulator, counting them by path.
  const upstream = await startFakePay(sandbox.pay);
  const stack = await startStack({
    reuseSandbox: sandbox,
    env: { KASSA_PAY_BASE_URL: upstream.url, KASSA_LOG_LEVEL: 'error' },
  });
  const streams: Array<ReturnType<typeof openSse>> = [];
  try {
    const watched: Array<{ transactionId: string; statusToken: string }> = [];
    for (let i = 0; i < WATCHERS; i++) watched.push((await stack.pay(await stack.checkout())).body);
    for (const payment of watched)
      streams.push(openSse(`${stack.proxy.origin}/api/payments/status/${payment.statusToken}/events`));
    await Promise.all(streams.map((stream) => stream.waitForEvents(1)));
    const stormed = watched[0]!.transactionId;
    // Checkouts made beforehand: the merchant's server makes them, and they cost the budget nothing.
    const checkouts = await Promise.all(Array.from({ length: NEW_PER_MINUTE }, () => stack.checkout()));
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));

    const before = snapshot(upstream.stats.byPath, stormed);
    const started = performance.now();
    const storm = webhookStorm([stack.webhookUrl()], stormed, STORM);
    const answers = await Promise.all(
      checkouts.map(async (checkoutId, i) => {
        await new Promise((resolve) => setTimeout(resolve, (i * 60_000) / NEW_PER_MINUTE));
        return stack.pay(checkoutId, `budget-${i}-${randomBytes(4).toString('hex')}`);
      }),
    );
    const stormStatuses = await storm;
    const seconds = (performance.now() - started) / 1000;
    // Reads the storm may still cause once its payment's gate opens.
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    const after = snapshot(upstream.stats.byPath, stormed);

    const created = answers.filter((answer) => answer.status === 201).length;
    const waited = answers.filter((answer) => answer.status === 429).length;
    const other = answers.length - created - waited;
    const perMinute = (created * 60) / seconds;
    console.log(
      `${WATCHERS} customers watching at their bank, ${STORM} webhooks for one payment (${stormStatuses.filter((status) => status === 200).length} answered 200): ` +
        `${created} new payments created in ${seconds.toFixed(0)} s (${perMinute.toFixed(0)} a minute), ${waited} told to wait${other ? `, ${other} failed` : ''} (target: none told to wait)`,
    );
    console.log(
      `upstream in that minute: ${after.initiates - before.initiates} initiates, ${after.reads - before.reads - (after.stormReads - before.stormReads)} reads for watchers and the follower, ` +
        `${after.stormReads - before.stormReads} for the ${STORM} webhooks (target: at most 2); the payment service allows 100 a minute`,
    );
  } finally {
    streams.forEach((stream) => stream.close());
    await stack.stop();
    await upstream.close();
    await sandbox.stop();
  }
}

function snapshot(byPath: Map<string, number>, stormed: string) {
  let reads = 0;
  for (const [path, count] of byPath) if (/^\/v1\/payments\/[0-9a-f-]{36}$/.test(path)) reads += count;
  return {
    initiates: byPath.get('/v1/payments/initiate') ?? 0,
    reads,
    stormReads: byPath.get(`/v1/payments/${stormed}`) ?? 0,
  };
}
