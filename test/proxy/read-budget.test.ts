import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { openSse } from '../support/sse-client.ts';
import { eventually, startStack, type Stack } from '../support/stack.ts';
import { readsAllowedWithin, webhookStorm } from '../support/webhook-storm.ts';

/** What the payment service counted: upstream reads of payments (`/_sandbox/metrics`). */
const upstreamReads = async (stack: Stack) => ((await stack.control('/metrics')).body['pay.read'] as number) ?? 0;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('proxy: the upstream budget keeps a share for new payments', () => {
  it('a storm of 500 webhooks for one payment costs one read, and one more once its gate opens; no status is lost and new payments are not held back', async () => {
    const stack = await startStack();
    try {
      const payment = (await stack.pay(await stack.checkout())).body;
      const before = await upstreamReads(stack);
      const stormStarted = Date.now();
      const first = await webhookStorm([stack.webhookUrl()], payment.transactionId, 50);
      await eventually(async () => ((await upstreamReads(stack)) > before ? true : undefined), 'the first read');
      // The bank settles in the middle of the storm: what the first read saw is out of date.
      await stack.control(`/payments/${payment.transactionId}/outcome`, { status: 'COMPLETED' });
      const rest = await webhookStorm([stack.webhookUrl()], payment.transactionId, 450);
      assert.ok(
        [...first, ...rest].every((status) => status === 200),
        'every delivery answered',
      );
      await eventually(
        async () =>
          (await stack.browser(`/api/payments/status/${payment.statusToken}`)).body.status === 'COMPLETED'
            ? true
            : undefined,
        'the completion, read once the gate opened',
      );
      // Two reads where the storm takes less than the gate's 5 s; on a slower machine, one more each 5 s it takes.
      const allowed = readsAllowedWithin(Date.now() - stormStarted);
      // Long enough for any read still to come: past the gate and the follower's next sweep.
      await sleep(6_000);
      const reads = (await upstreamReads(stack)) - before;
      assert.ok(
        reads <= allowed,
        `${reads} upstream reads for 500 webhooks (at most ${allowed} in the time they took)`,
      );
      const fresh = await Promise.all(Array.from({ length: 10 }, async () => stack.pay(await stack.checkout())));
      assert.deepEqual(
        fresh.map((answer) => answer.status),
        Array.from({ length: 10 }, () => 201),
      );
    } finally {
      await stack.stop();
    }
  });

  it("a webhook just after a watcher's read is read at once: the gate the watcher holds does not hold the customer's receipt back", async () => {
    const stack = await startStack();
    try {
      const payment = (await stack.pay(await stack.checkout())).body;
      const stream = openSse(`${stack.proxy.origin}/api/payments/status/${payment.statusToken}/events`);
      await stream.waitForEvents(1);
      const before = await upstreamReads(stack);
      const watchStarted = Date.now();
      // The watcher's first re-read comes 5 s after the payment was made; then the bank settles.
      await eventually(async () => ((await upstreamReads(stack)) > before ? true : undefined), "the watcher's read");
      await stack.control(`/payments/${payment.transactionId}/outcome`, { status: 'COMPLETED' });
      await stream.waitForClose();
      // The webhook's read, and the watcher's: one where this takes less than its 5 s, and on a slower
      // machine one more each 5 s it watched.
      const allowed = 1 + readsAllowedWithin(Date.now() - watchStarted);
      assert.equal(stream.data().at(-1)!.status, 'COMPLETED');
      // Read for the webhook itself: held behind the watcher's gate, it would come with the next
      // watcher's read or a queued one, 5 s on.
      assert.equal(stack.changedBy(payment.transactionId, 'COMPLETED'), 'webhook');
      await sleep(6_000);
      const reads = (await upstreamReads(stack)) - before;
      assert.ok(reads <= allowed, `${reads} upstream reads: the watcher's and the webhook's (at most ${allowed})`);
    } finally {
      await stack.stop();
    }
  });

  it('40 customers watching at their bank: their re-reads stay within their share, and no new payment is told to wait', async () => {
    // At debug level the proxy says why a webhook's read was put off: a closed gate, or no room in the budget.
    const stack = await startStack({ env: { KASSA_LOG_LEVEL: 'debug' } });
    const streams: Array<ReturnType<typeof openSse>> = [];
    const watched: Array<{ transactionId: string }> = [];
    try {
      for (let batch = 0; batch < 4; batch++) {
        const payments = await Promise.all(
          Array.from({ length: 10 }, async () => (await stack.pay(await stack.checkout())).body),
        );
        for (const payment of payments) {
          watched.push(payment);
          streams.push(openSse(`${stack.proxy.origin}/api/payments/status/${payment.statusToken}/events`));
        }
      }
      await Promise.all(streams.map((stream) => stream.waitForEvents(1)));
      const before = await upstreamReads(stack);
      // Each watched payment is due for a re-read every 5 s: twice in this time, were they all made.
      await sleep(11_000);
      const watchReads = (await upstreamReads(stack)) - before;
      assert.ok(watchReads <= 40, `${watchReads} reads for the watchers: at most their 40 % of the minute`);
      const created = await Promise.all(Array.from({ length: 30 }, async () => stack.pay(await stack.checkout())));
      const waits = created.filter((answer) => answer.status === 429);
      assert.equal(waits.length, 0, `${waits.length} of 30 new payments told to wait: ${waits[0]?.text}`);
      assert.ok(created.every((answer) => answer.status === 201));
      // The watchers found no room in the budget; that did not close their payments' read gates, so
      // the bank's webhook finds its payment's gate open. (Whether the budget has room for the read
      // then depends on how much of this minute the machine took: a read it refuses is queued, and the
      // completion comes all the same.)
      const putOff = (transactionId: string) =>
        stack.logs.filter(
          (line) =>
            line.includes('"msg":"payment re-read queued"') &&
            line.includes(transactionId) &&
            line.includes('"why":"read gate closed"'),
        );
      for (const index of [0, 9, 18, 27, 36]) {
        const { transactionId } = watched[index]!;
        await stack.control(`/payments/${transactionId}/outcome`, { status: 'COMPLETED' });
        await streams[index]!.waitForClose();
        assert.equal(streams[index]!.data().at(-1)!.status, 'COMPLETED');
        assert.deepEqual(putOff(transactionId), [], 'the webhook found the gate open');
      }
    } finally {
      streams.forEach((stream) => stream.close());
      await stack.stop();
    }
  });
});
