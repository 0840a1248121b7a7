import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startFleet, type Fleet } from '../support/fleet.ts';
import { http, type HttpResult } from '../support/http.ts';
import { startPostgres } from '../support/postgres-server.ts';
import { eventually } from '../support/stack.ts';
import { startForwarder } from '../support/tcp-forwarder.ts';

interface Answer {
  what: string;
  instance: number;
  /** 0: the connection failed (a crashed instance). */
  status: number;
  retryAfter: string | null;
}

/**
 * Customers paying through every instance of the fleet until stopped, a payment every 600 ms or so
 * per customer (within the 100-a-minute upstream budget): every answer kept, and every payment the
 * proxy accepted (201). A request the proxy never answers (a hang on the store, which its own
 * timeouts are there to prevent) gives up after PATIENCE_MS and counts as a dropped one (status 0).
 */
function customers(fleet: Fleet, instances: number, count = 2) {
  const answers: Answer[] = [];
  const accepted: Array<{ transactionId: string; statusToken: string }> = [];
  let running = true;
  const call = async (what: string, instance: number, request: () => Promise<HttpResult>) => {
    const result = await request().catch(() => undefined);
    answers.push({
      what,
      instance,
      status: result?.status ?? 0,
      retryAfter: result?.headers.get('retry-after') ?? null,
    });
    return result;
  };
  const customer = async (index: number) => {
    for (let round = 0; running; round++) {
      const next = sleep(600);
      const instance = (index + round) % instances;
      const checkout = await call('checkout', instance, () =>
        fleet.merchant(instance, '/api/checkouts', { amount: '12.00', currencyCode: 'EUR', reference: 'PG-FAULT' }),
      );
      if (checkout?.status === 201) {
        const paid = await call('pay', instance, () => fleet.pay(instance, checkout.body.checkoutId as string));
        if (paid?.status === 201) accepted.push(paid.body as { transactionId: string; statusToken: string });
      }
      const last = accepted.at(-1);
      if (last)
        await call('status', instance, () => fleet.browser(instance, `/api/payments/status/${last.statusToken}`));
      await next;
    }
  };
  const running_ = Array.from({ length: count }, (_, index) => customer(index));
  return {
    answers,
    accepted,
    async stop() {
      running = false;
      await Promise.all(running_);
    },
  };
}

type Traffic = ReturnType<typeof customers>;

/** What every fault test asks of the answers customers got: successes, or 503 with Retry-After. */
function assertOnlyClear503s(answers: Answer[], options: { outageSeen: boolean }): void {
  const unexpected = answers.filter((answer) => ![200, 201, 503].includes(answer.status));
  assert.deepEqual(unexpected, [], 'nothing but successes and 503s: no 500, no dropped connection, no hang');
  const refused = answers.filter((answer) => answer.status === 503);
  if (options.outageSeen) assert.ok(refused.length > 0, 'the outage was seen');
  assert.ok(
    refused.every((answer) => Number(answer.retryAfter) > 0),
    'every 503 says when to retry',
  );
}

/** Every payment the proxy accepted is still there, by its status token and in the operator's list. */
async function assertNoneLost(fleet: Fleet, accepted: Array<{ transactionId: string; statusToken: string }>) {
  assert.ok(accepted.length > 0);
  for (const [index, payment] of accepted.entries()) {
    const view = await fleet.browser(index % 2, `/api/payments/status/${payment.statusToken}`);
    assert.equal(view.status, 200, `payment ${payment.transactionId} is still there`);
    assert.equal(view.body.transactionId, payment.transactionId);
  }
  const ids = new Set<string>();
  for (let cursor: string | null = ''; cursor !== null;) {
    const page = await http(`${fleet.origin(0)}/api/payments?limit=200${cursor ? `&cursor=${cursor}` : ''}`, {
      headers: fleet.admin.headers,
    });
    for (const payment of page.body.payments as Array<{ transactionId: string }>) ids.add(payment.transactionId);
    cursor = page.body.nextCursor as string | null;
  }
  assert.deepEqual(
    accepted.filter((payment) => !ids.has(payment.transactionId)),
    [],
    'every accepted payment in the list',
  );
}

const ready = (fleet: Fleet, index: number) =>
  eventually(
    async () =>
      (await http(`${fleet.origin(index)}/readyz`).catch(() => undefined))?.status === 200 ? true : undefined,
    `instance ${index} ready again`,
  );

describe('proxy fleet on PostgreSQL: the database goes away', () => {
  it('stopped and started mid-traffic: only 503s with Retry-After, no instance crashes, no payment lost, recovery with no restart', async () => {
    const fleet = await startFleet({ instances: 2, store: 'postgres', processes: true, logLevel: 'warn' });
    let traffic: Traffic | undefined;
    try {
      const live = customers(fleet, 2);
      traffic = live;
      await eventually(() => (live.accepted.length >= 3 ? true : undefined), 'payments before the outage');
      await fleet.storeServer.restart(async () => {
        // Down until customers have met the outage, and the probes say the store is away.
        const answered = live.answers.length;
        await eventually(
          () => live.answers.slice(answered).some((answer) => answer.status === 503) || undefined,
          'a customer to meet the outage',
        );
        const probe = await http(`${fleet.origin(1)}/readyz`);
        assert.equal(probe.status, 503);
        assert.equal(probe.body.reason, 'store_unavailable');
        assert.equal((await http(`${fleet.origin(1)}/livez`)).status, 200, 'alive: nothing to restart');
      });
      await Promise.all([ready(fleet, 0), ready(fleet, 1)]);
      const before = live.accepted.length;
      await eventually(() => (live.accepted.length >= before + 4 ? true : undefined), 'payments after the outage');
      await live.stop();
      assertOnlyClear503s(live.answers, { outageSeen: true });
      for (const instance of [0, 1]) {
        assert.ok(fleet.at(instance).running!(), `instance ${instance} never crashed`);
        assert.ok(
          live.answers.some((answer) => answer.instance === instance && answer.status === 201),
          `instance ${instance} took payments`,
        );
      }
      await assertNoneLost(fleet, live.accepted);
    } finally {
      await traffic?.stop();
      await fleet.stop();
    }
  });

  it('a failover to a streaming replica (synchronous commit), the URL unchanged: no committed payment lost', async () => {
    const primary = await startPostgres();
    const replica = await primary.startReplica();
    const forwarder = await startForwarder(primary.port);
    try {
      // A commit returns once the replica has it: what the primary acknowledged survives its loss.
      await primary.sql(`ALTER SYSTEM SET synchronous_standby_names = '*'`);
      await primary.sql('SELECT pg_reload_conf()');
      await eventually(async () => {
        const [result] = await primary.sql('SELECT sync_state FROM pg_stat_replication');
        return result!.rows[0]?.sync_state === 'sync' ? true : undefined;
      }, 'a synchronous standby');
      const database = new URL(await primary.createDatabase());
      database.port = String(forwarder.port);
      const fleet = await startFleet({
        instances: 2,
        store: 'postgres',
        postgres: primary,
        databaseUrl: database.href,
        processes: true,
        logLevel: 'warn',
      });
      let traffic: Traffic | undefined;
      try {
        // A status change committed before the failover, to be read on the new primary.
        const settled = (await fleet.pay(0, await fleet.checkout(0))).body as {
          transactionId: string;
          statusToken: string;
        };
        await fleet.control(`/payments/${settled.transactionId}/outcome`, { status: 'COMPLETED' });
        await eventually(async () =>
          (await fleet.browser(1, `/api/payments/status/${settled.statusToken}`)).body.status === 'COMPLETED'
            ? true
            : undefined,
        );
        const live = customers(fleet, 2);
        traffic = live;
        await eventually(() => (live.accepted.length >= 4 ? true : undefined), 'payments before the failover');
        primary.kill();
        forwarder.switchTo(replica.port);
        // The standby answers, read-only: not ready until it is promoted.
        await eventually(async () => {
          const probe = await http(`${fleet.origin(0)}/readyz`).catch(() => undefined);
          return probe?.status === 503 && probe.body.reason === 'store_unavailable' ? true : undefined;
        }, 'not ready while the database is a standby');
        await replica.promote();
        await Promise.all([ready(fleet, 0), ready(fleet, 1)]);
        const before = live.accepted.length;
        await eventually(() => (live.accepted.length >= before + 4 ? true : undefined), 'payments after the failover');
        await live.stop();
        // A quick promotion may fall between two customers' requests: 503s are allowed, not required.
        assertOnlyClear503s(live.answers, { outageSeen: false });
        assert.ok(fleet.at(0).running!() && fleet.at(1).running!(), 'no instance crashed');
        await assertNoneLost(fleet, [settled, ...live.accepted]);
        await sleep(1_100);
        assert.equal(
          (await fleet.browser(0, `/api/payments/status/${settled.statusToken}`)).body.status,
          'COMPLETED',
          'the status change committed before the failover, read from the new primary',
        );
      } finally {
        await traffic?.stop();
        await fleet.stop();
      }
    } finally {
      await forwarder.close();
      await replica.stop();
      await primary.stop();
    }
  });
});
