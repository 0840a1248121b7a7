import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { http } from '../support/http.ts';
import { FLEET_STORES, startFleet, type Fleet } from '../support/fleet.ts';
import { openSse } from '../support/sse-client.ts';
import { eventually } from '../support/stack.ts';
import { readsAllowedWithin, webhookStorm } from '../support/webhook-storm.ts';

/** A fleet: three proxy instances on one Redis, or on one PostgreSQL database, behave as one proxy. */
for (const { store, name } of FLEET_STORES) {
  describe(`proxy fleet on ${name}: three instances, one shop`, () => {
    let fleet: Fleet;
    before(async () => {
      fleet = await startFleet({ instances: 3, store });
    });
    after(() => fleet.stop());

    it('a webhook received by instance A reaches an SSE subscriber on instance C', async () => {
      const payment = (await fleet.pay(1, await fleet.checkout())).body;
      const stream = openSse(`${fleet.origin(2)}/api/payments/status/${payment.statusToken}/events`);
      await stream.waitForEvents(1);
      await fleet.control(`/payments/${payment.transactionId}/outcome`, { status: 'COMPLETED' });
      await stream.waitForClose();
      assert.equal(stream.data().at(-1)!.status, 'COMPLETED');
      assert.ok(
        fleet.logs[0]!.some((line) => line.includes('/hooks/payments/')),
        'the webhook went to instance A',
      );
      assert.ok(!fleet.logs[2]!.some((line) => line.includes('/hooks/payments/')), 'not to C');
    });

    it('an idempotency key replayed on another instance gives the same payment; a checkout has one live payment fleet-wide', async () => {
      const checkoutId = await fleet.checkout(0);
      const first = await fleet.pay(0, checkoutId, 'fleet-replay-key-1');
      const replay = await fleet.pay(1, checkoutId, 'fleet-replay-key-1');
      assert.equal(replay.body.transactionId, first.body.transactionId);
      assert.equal(replay.body.statusToken, first.body.statusToken);
      const tabs = await Promise.all(
        [0, 1, 2, 0, 1, 2].map((index, i) => fleet.pay(index, checkoutId, `fleet-tab-${i}-key`)),
      );
      assert.ok(tabs.every((tab) => tab.body.transactionId === first.body.transactionId));
    });

    it('at most one upstream re-read per payment per 5 s, however many instances watch it', async () => {
      await fleet.control(`/keys/${fleet.sandbox.keyId}`, { webhookUrl: null }, 'PATCH');
      try {
        const payment = (await fleet.pay(0, await fleet.checkout())).body;
        const streams = [0, 1, 2].flatMap((index) => [
          openSse(`${fleet.origin(index)}/api/payments/status/${payment.statusToken}/events`),
          openSse(`${fleet.origin(index)}/api/payments/status/${payment.statusToken}/events`),
        ]);
        await Promise.all(streams.map((stream) => stream.waitForEvents(1)));
        const before = await fleet.metric('pay.read');
        // Counted over 11 s: a slower machine can only read less in them.
        await new Promise((resolve) => setTimeout(resolve, 11_000));
        const reads = (await fleet.metric('pay.read')) - before;
        assert.ok(reads <= 3, `${reads} reads in 11 s by three instances`);
        await eventually(async () => ((await fleet.metric('pay.read')) > before ? true : undefined), 'a re-read');
        streams.forEach((stream) => stream.close());
      } finally {
        await fleet.control(
          `/keys/${fleet.sandbox.keyId}`,
          { webhookUrl: `${fleet.origin(0)}/hooks/payments/${fleet.config.webhookSecret}` },
          'PATCH',
        );
      }
    });

    it('a storm of 500 webhooks for one payment spread over the three instances costs one read, and one more once the gate opens', async () => {
      const payment = (await fleet.pay(0, await fleet.checkout())).body;
      const hooks = [0, 1, 2].map((index) => `${fleet.origin(index)}/hooks/payments/${fleet.config.webhookSecret}`);
      const before = await fleet.metric('pay.read');
      const stormStarted = Date.now();
      await webhookStorm(hooks, payment.transactionId, 60);
      await eventually(async () => ((await fleet.metric('pay.read')) > before ? true : undefined), 'a read');
      await fleet.control(`/payments/${payment.transactionId}/outcome`, { status: 'COMPLETED' });
      const statuses = await webhookStorm(hooks, payment.transactionId, 440);
      assert.ok(statuses.every((status) => status === 200));
      await eventually(
        async () =>
          (await fleet.browser(2, `/api/payments/status/${payment.statusToken}`)).body.status === 'COMPLETED'
            ? true
            : undefined,
        'the completion',
      );
      // Two reads where the storm takes less than the gate's 5 s; on a slower machine, one more each 5 s it takes.
      const allowed = readsAllowedWithin(Date.now() - stormStarted);
      await new Promise((resolve) => setTimeout(resolve, 6_000));
      const reads = (await fleet.metric('pay.read')) - before;
      assert.ok(reads <= allowed, `${reads} upstream reads for 500 webhooks on three instances (at most ${allowed})`);
    });

    it('losing an instance loses nothing: its subscribers reconnect elsewhere and get the current status at once', async () => {
      const payment = (await fleet.pay(0, await fleet.checkout())).body;
      const onB = openSse(`${fleet.origin(1)}/api/payments/status/${payment.statusToken}/events`);
      await onB.waitForEvents(1);
      await fleet.kill(1);
      await onB.waitForClose();
      await fleet.control(`/payments/${payment.transactionId}/outcome`, {
        status: 'FAILED',
        networkStatus: 'REJECTED',
      });
      await eventually(async () =>
        (await fleet.browser(0, `/api/payments/status/${payment.statusToken}`)).body.status === 'FAILED'
          ? true
          : undefined,
      );
      const onC = openSse(`${fleet.origin(2)}/api/payments/status/${payment.statusToken}/events`);
      await onC.waitForClose();
      assert.deepEqual(
        onC.data().map((view) => [view.status, view.networkStatus]),
        [['FAILED', 'REJECTED']],
      );
    });
  });

  describe(`proxy fleet on ${name}: limits and outages`, () => {
    it('1,000 concurrent payment creations spread over three instances: one token request, the budget counted fleet-wide', async () => {
      const fleet = await startFleet({ instances: 3, logLevel: 'warn', store });
      try {
        const checkouts: string[] = [];
        for (let batch = 0; batch < 20; batch++)
          checkouts.push(...(await Promise.all(Array.from({ length: 50 }, (_, i) => fleet.checkout(i % 3)))));
        const tokensBefore = await fleet.metric('pay.token');
        const initiatesBefore = await fleet.metric('pay.initiate');
        const results = await Promise.all(checkouts.map((checkoutId, i) => fleet.pay(i % 3, checkoutId)));
        assert.equal((await fleet.metric('pay.token')) - tokensBefore, 1);
        const created = results.filter((result) => result.status === 201).length;
        // Told when to retry: the budget's 429, or, where a machine too busy keeps the store or the
        // payment service past their deadlines, a 503 or 502; each with Retry-After.
        const retry = results.filter((result) => [429, 502, 503].includes(result.status));
        assert.deepEqual(
          results
            .filter((result) => result.status !== 201 && !retry.includes(result))
            .map(({ status, text }) => `${status} ${text}`),
          [],
          'every request was either served or told when to retry',
        );
        assert.ok(
          retry.some((result) => result.status === 429),
          'the budget refused the rest',
        );
        assert.ok(created > 0 && created <= 100, `${created} created: the 100-a-minute budget holds fleet-wide`);
        assert.ok((await fleet.metric('pay.initiate')) - initiatesBefore <= 100);
        assert.ok(retry.every((result) => Number(result.headers.get('retry-after')) > 0));
      } finally {
        await fleet.stop();
      }
    });

    it(`losing ${name} for a moment: clear 503s, then recovery with the right statuses`, async () => {
      const fleet = await startFleet({ instances: 2, store });
      try {
        const payment = (await fleet.pay(0, await fleet.checkout())).body;
        await fleet.storeServer.restart(async () => {
          const status = await fleet.browser(1, `/api/payments/status/${'A'.repeat(43)}`);
          assert.equal(status.status, 503);
          assert.match(status.body.error, /store/);
          assert.equal(status.headers.get('retry-after'), '2');
          assert.equal((await fleet.pay(1, 'chk_any')).status, 503);
          // Not ready while its store is away (a load balancer stops sending customers), yet alive.
          const ready = await http(`${fleet.origin(0)}/readyz`);
          assert.equal(ready.status, 503);
          assert.equal(ready.body.reason, 'store_unavailable');
          assert.equal((await http(`${fleet.origin(0)}/livez`)).status, 200);
          // The bank settles while the store is away: the webhook is refused (503), so the service retries it.
          await fleet.control(`/payments/${payment.transactionId}/outcome`, { status: 'COMPLETED' });
          await eventually(async () =>
            (await fleet.control(`/webhooks?transactionId=${payment.transactionId}`)).body.length > 0
              ? true
              : undefined,
          );
        });
        await eventually(
          async () => ((await http(`${fleet.origin(0)}/readyz`)).status === 200 ? true : undefined),
          'recovery',
        );
        const view = await eventually(async () => {
          const current = (await fleet.browser(1, `/api/payments/status/${payment.statusToken}`)).body;
          return current.status === 'COMPLETED' ? current : undefined;
        }, 'the status after recovery');
        assert.equal(view.networkStatus, 'PAYMENT_EXECUTED_CREDITED');
        const attempts = (await fleet.control(`/webhooks?transactionId=${payment.transactionId}`)).body as Array<{
          status: number;
        }>;
        assert.equal(attempts[0]!.status, 503, 'refused while the store was away');
        assert.equal((await fleet.pay(0, await fleet.checkout())).status, 201, 'new payments work again');
      } finally {
        await fleet.stop();
      }
    });
  });
}
