import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { createLogger } from '../../proxy/logger.ts';
import { POSTGRES, PostgresDatabase } from '../../proxy/state/postgres/database.ts';
import { openPostgres } from '../../proxy/state/postgres/open.ts';
import { insertEvents } from '../../proxy/state/sql/outbox.ts';
import { connectRedis } from '../../proxy/state/redis/database.ts';
import { redisKeys } from '../../proxy/state/redis/keys.ts';
import { RedisStore } from '../../proxy/state/redis/store.ts';
import { expiryRule } from '../../proxy/events/event-rules.ts';
import { openSqlite } from '../../proxy/state/sqlite/open.ts';
import { SQLITE_RELEASED } from '../../proxy/state/sqlite/schema.ts';
import type { Payment, Store } from '../../proxy/state/store.ts';
import { sharedPostgres } from '../support/postgres-server.ts';
import { startRedis } from '../support/redis-server.ts';
import { STORE_BACKENDS, type OpenedStore } from '../support/store-backends.ts';
import { checkout, destinationRecord, payment } from '../support/store-records.ts';

const STALE = 60_000;

/** One contract, every store: whatever the proxy relies on holds for SQLite, Redis and PostgreSQL alike. */
for (const backend of STORE_BACKENDS) {
  describe(`store contract: ${backend.name}`, () => {
    let opened: OpenedStore;
    let store: Store;
    before(async () => ({ store } = opened = await backend.open()));
    after(() => opened.close());

    /** Starts a payment the way the starter does: claim, then record. */
    const started = async (
      input: { checkoutId?: string | null; key?: string; status?: string; createdAt?: number } = {},
    ) => {
      const key = input.key ?? randomUUID();
      const claim = await store.beginAttempt({
        idempotencyKey: key,
        fingerprint: 'f',
        checkoutId: input.checkoutId ?? null,
        statusToken: `tok-${key}`,
        now: Date.now(),
        staleAfterMs: STALE,
      });
      assert.equal(claim.outcome, 'started');
      const made = payment({
        idempotencyKey: key,
        statusToken: `tok-${key}`,
        checkoutId: input.checkoutId ?? null,
        status: input.status ?? 'PENDING',
        createdAt: input.createdAt ?? Date.now(),
      });
      await store.recordPayment(made);
      return made;
    };

    it('keeps checkouts', async () => {
      const chk = checkout({ metadata: '{"a":1}' });
      await store.insertCheckout(chk);
      assert.deepEqual(await store.getCheckout(chk.checkoutId), chk);
      assert.equal(await store.getCheckout('chk_missing'), undefined);
      await assert.rejects(store.insertCheckout(chk), 'a checkout id is never reused');
    });

    it('claims a key once: the second claim is a replay of the first', async () => {
      const first = await started();
      const replay = await store.beginAttempt({
        idempotencyKey: first.idempotencyKey,
        fingerprint: 'f',
        checkoutId: null,
        statusToken: 'other',
        now: Date.now(),
        staleAfterMs: STALE,
      });
      assert.equal(replay.outcome, 'replay');
      assert.equal(replay.outcome === 'replay' && replay.attempt.transactionId, first.transactionId);
      assert.equal((await store.getAttempt(first.idempotencyKey))?.state, 'succeeded');
    });

    it('gives a checkout to one attempt at a time, even when 30 race for it', async () => {
      const chk = checkout();
      await store.insertCheckout(chk);
      const claims = await Promise.all(
        Array.from({ length: 30 }, (_, i) =>
          store.beginAttempt({
            idempotencyKey: `race-${chk.checkoutId}-${i}`,
            fingerprint: 'f',
            checkoutId: chk.checkoutId,
            statusToken: `t-${chk.checkoutId}-${i}`,
            now: Date.now(),
            staleAfterMs: STALE,
          }),
        ),
      );
      assert.equal(claims.filter((claim) => claim.outcome === 'started').length, 1);
      assert.ok(claims.every((claim) => claim.outcome === 'started' || claim.outcome === 'checkout-taken'));
      assert.match((await store.getCheckout(chk.checkoutId))!.currentAttempt!, /^race-/);
    });

    it('frees a checkout after an abandoned or a stale attempt, and after a failed payment; not after a live or paid one', async () => {
      const chk = checkout();
      await store.insertCheckout(chk);
      const claim = (key: string, now = Date.now()) =>
        store.beginAttempt({
          idempotencyKey: key,
          fingerprint: 'f',
          checkoutId: chk.checkoutId,
          statusToken: `t-${key}`,
          now,
          staleAfterMs: STALE,
        });
      assert.equal((await claim(`a-${chk.checkoutId}`, Date.now() - 2 * STALE)).outcome, 'started');
      assert.equal((await claim(`b-${chk.checkoutId}`)).outcome, 'started', 'the stale pending attempt is discarded');
      assert.equal(await store.getAttempt(`a-${chk.checkoutId}`), undefined);
      assert.equal((await claim(`c-${chk.checkoutId}`)).outcome, 'checkout-taken');
      await store.abandonAttempt(`b-${chk.checkoutId}`);
      assert.equal((await store.getCheckout(chk.checkoutId))!.currentAttempt, null);
      const live = await started({ checkoutId: chk.checkoutId });
      assert.equal((await claim(`d-${chk.checkoutId}`)).outcome, 'checkout-taken', 'a live payment holds the checkout');
      await store.applyUpdate(
        live.transactionId,
        { ...live, status: 'FAILED', networkStatus: 'CANCELLED' },
        Date.now(),
      );
      const paid = await started({ checkoutId: chk.checkoutId });
      await store.applyUpdate(
        paid.transactionId,
        { ...paid, status: 'COMPLETED', completedAt: new Date().toISOString() },
        Date.now(),
      );
      assert.equal((await claim(`e-${chk.checkoutId}`)).outcome, 'checkout-paid');
    });

    it('finds payments by status token and id', async () => {
      const made = await started();
      assert.deepEqual(await store.paymentByToken(made.statusToken), made);
      assert.deepEqual(await store.paymentById(made.transactionId), made);
      assert.equal(await store.paymentByToken('nope'), undefined);
    });

    it('applies updates: visible changes only, and a final status never changes again', async () => {
      const made = await started();
      const quiet = await store.applyUpdate(made.transactionId, { ...made }, made.lastCheckedAt! + 1);
      assert.equal(quiet, undefined, 'nothing visible changed');
      assert.equal((await store.paymentById(made.transactionId))!.lastCheckedAt, made.lastCheckedAt! + 1);
      const authorised = await store.applyUpdate(
        made.transactionId,
        { ...made, networkStatus: 'AUTHORISED', providerId: 'bank_x' },
        Date.now(),
      );
      assert.equal(authorised?.networkStatus, 'AUTHORISED');
      // The end-to-end id and the return page stay as recorded when an update does not carry them.
      const { endToEndId: _, ...withoutEndToEnd } = made;
      const chosen = await store.applyUpdate(
        made.transactionId,
        { ...withoutEndToEnd, networkStatus: 'AUTHORISED', providerId: 'bank_y' },
        Date.now(),
      );
      assert.equal(chosen?.endToEndId, made.endToEndId);
      assert.equal((await store.paymentById(made.transactionId))!.returnUrl, made.returnUrl);
      assert.equal((await store.paymentById(made.transactionId))!.endToEndId, made.endToEndId);
      const done = await store.applyUpdate(
        made.transactionId,
        {
          ...made,
          status: 'COMPLETED',
          networkStatus: 'PAYMENT_EXECUTED_CREDITED',
          completedAt: new Date().toISOString(),
        },
        Date.now(),
      );
      assert.equal(done?.status, 'COMPLETED');
      assert.equal(
        await store.applyUpdate(
          made.transactionId,
          { ...made, status: 'FAILED', networkStatus: 'REJECTED' },
          Date.now(),
        ),
        undefined,
      );
      assert.equal((await store.paymentById(made.transactionId))!.status, 'COMPLETED');
      assert.equal(await store.applyUpdate('unknown', { ...made }, Date.now()), undefined);
    });

    it('lists newest first, by status, a page at a time; lists the pending oldest first', async () => {
      const base = Date.now() + 10_000_000;
      const made: Payment[] = [];
      for (let i = 0; i < 5; i++) made.push(await started({ createdAt: base + i }));
      await store.applyUpdate(made[2]!.transactionId, { ...made[2]!, status: 'FAILED' }, Date.now());
      const first = await store.listPayments({ limit: 2 });
      assert.deepEqual(
        first.payments.map((p) => p.transactionId),
        [made[4]!.transactionId, made[3]!.transactionId],
      );
      const second = await store.listPayments({ limit: 2, cursor: first.nextCursor! });
      assert.deepEqual(
        second.payments.map((p) => p.transactionId),
        [made[2]!.transactionId, made[1]!.transactionId],
      );
      const failed = await store.listPayments({ status: 'FAILED', limit: 50 });
      assert.ok(failed.payments.some((p) => p.transactionId === made[2]!.transactionId));
      assert.ok(failed.payments.every((p) => p.status === 'FAILED'));
      const pending = (await store.pendingPayments(1_000)).map((p) => p.transactionId);
      assert.ok(!pending.includes(made[2]!.transactionId));
      const ours = pending.filter((id) => made.some((p) => p.transactionId === id));
      assert.deepEqual(
        ours,
        [made[0]!, made[1]!, made[3]!, made[4]!].map((p) => p.transactionId),
        'oldest first',
      );
    });

    it('remembers webhook deliveries', async () => {
      const event = { dedupeKey: randomUUID(), transactionId: null, receivedAt: Date.now(), body: '{}' };
      assert.equal(await store.recordWebhook(event), true);
      assert.equal(await store.recordWebhook(event), false);
      await store.ping();
    });

    it('settles a checkout’s expiry once, when two sweeps (two instances) race for it', async () => {
      const now = Date.now();
      const expired = checkout({ createdAt: now - 60_000, expiresAt: now - 1_000 });
      await store.insertCheckout(expired);
      const rule = expiryRule('sandbox');
      await Promise.all([1, 2, 3].map(() => store.outbox.expireCheckouts(Date.now(), 100, rule)));
      const { events } = await store.outbox.listEvents({ limit: 200 });
      assert.deepEqual(
        events.filter((event) => event.checkoutId === expired.checkoutId).map((event) => event.type),
        ['checkout.expired'],
      );
    });

    it('where events go: a run of 410s disables an endpoint once, a 2xx ends the run, an operator enables it', async () => {
      const { outbox } = store;
      const id = `ep_${randomUUID()}`;
      const fresh = { endpointId: id, goneInARow: 0, disabledAt: null, disabledReason: null };
      const rule = (at: number) => ({ after: 3, at, reason: 'answered 410 Gone 3 times in a row' });
      assert.deepEqual(await outbox.endpointState(id), fresh, 'never recorded: enabled');
      assert.equal((await outbox.countGone(id, rule(1))).goneInARow, 1);
      await outbox.clearGone(id);
      assert.deepEqual(await outbox.endpointState(id), fresh, 'a 2xx ended the run');
      // Ten attempts of a fleet answered at once: each counted, and the one that made the run 3 disabled it.
      const states = await Promise.all(Array.from({ length: 10 }, (_, i) => outbox.countGone(id, rule(100 + i))));
      assert.deepEqual(
        states.map((state) => state.goneInARow).sort((a, b) => a - b),
        [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
      );
      const third = states.findIndex((state) => state.goneInARow === 3);
      for (const state of states) assert.equal(state.disabledAt, state.goneInARow < 3 ? null : 100 + third);
      assert.deepEqual(await outbox.endpointState(id), {
        endpointId: id,
        goneInARow: 10,
        disabledAt: 100 + third,
        disabledReason: 'answered 410 Gone 3 times in a row',
      });
      await outbox.clearGone(id);
      assert.equal((await outbox.endpointState(id)).disabledAt, 100 + third, 'a late 2xx does not enable it');
      assert.deepEqual(await outbox.enableEndpoint(id), fresh);
      assert.deepEqual(await outbox.endpointState(id), fresh);
    });

    it('event destinations: an event fans out to each one that takes it, each queue is delivered in order by one instance at a time', async () => {
      const { destinations } = store;
      const now = Date.now();
      const destination = (enabledEvents: string[], disabledAt: number | null = null) =>
        destinationRecord({
          enabledEvents,
          createdAt: now,
          disabledAt,
          disabledReason: disabledAt === null ? null : 'Disabled by Test Admin',
        });
      const [all, other, paused] = [destination(['*']), destination(['payment.failed']), destination(['*'], now)];
      for (const record of [all, other, paused]) await destinations.create(record);
      assert.deepEqual(await destinations.get(paused.destinationId), paused);
      const expired = [1, 2].map((i) => checkout({ createdAt: now - 60_000, expiresAt: now - 1_000 - i }));
      for (const chk of expired) await store.insertCheckout(chk);
      await store.outbox.expireCheckouts(now, 100, expiryRule('sandbox'));
      const events = (await store.outbox.listEvents({ limit: 200 })).events;
      // In the order written, whatever the events' times (of one millisecond, perhaps): the sweep takes
      // the checkouts by expiry.
      const written = [expired[1]!, expired[0]!].map(
        (chk) => events.find((event) => event.checkoutId === chk.checkoutId)!.eventId,
      );
      const at = Date.now();
      const pending = await destinations.pendingCounts();
      assert.equal(pending.get(all.destinationId), 2);
      assert.equal(pending.get(other.destinationId) ?? 0, 0, 'a type it does not take');
      assert.equal(pending.get(paused.destinationId), 2, 'a disabled one keeps its events');
      assert.deepEqual(await destinations.claimHead(paused.destinationId, at, 10, 30_000), [], 'nor is it delivered');
      // The lease: while one instance delivers the queue, no other gets it.
      const head = await destinations.claimHead(all.destinationId, at, 10, 30_000);
      assert.deepEqual(
        head.map((delivery) => delivery.eventId),
        written,
      );
      assert.deepEqual(await destinations.claimHead(all.destinationId, at, 10, 30_000), [], 'leased');
      const attempt = { at, durationMs: 12, statusCode: 503, error: null };
      await destinations.settle(all.destinationId, written[0]!, attempt, { status: 'pending', retryAt: at + 60_000 });
      await destinations.releaseLease(all.destinationId);
      assert.deepEqual(
        await destinations.claimHead(all.destinationId, at, 10, 30_000),
        [],
        'the head waits, and all behind it',
      );
      const retried = await destinations.claimHead(all.destinationId, at + 60_000, 10, 30_000);
      assert.deepEqual(
        retried.map((delivery) => [delivery.eventId, delivery.attempts]),
        [
          [written[0], 1],
          [written[1], 0],
        ],
      );
      for (const eventId of written)
        await destinations.settle(all.destinationId, eventId, { ...attempt, statusCode: 200 }, { status: 'delivered' });
      await destinations.releaseLease(all.destinationId);
      const log = await destinations.deliveries(all.destinationId, { limit: 10 });
      assert.deepEqual(
        log.deliveries.map((delivery) => [
          delivery.eventId,
          delivery.status,
          delivery.attempts,
          delivery.lastStatusCode,
        ]),
        [
          [written[1], 'delivered', 1, 200],
          [written[0], 'delivered', 2, 200],
        ],
        'newest first',
      );
      assert.equal((await destinations.pendingCounts()).get(all.destinationId) ?? 0, 0);
      // Skipping the disabled one's backlog; enabling it then sends nothing of it.
      assert.equal(await destinations.skipPending(paused.destinationId), 2);
      const enabled = await destinations.update(paused.destinationId, { disabledAt: null, disabledReason: null });
      assert.equal(enabled?.disabledAt, null);
      assert.deepEqual(await destinations.claimHead(paused.destinationId, at, 10, 30_000), []);
      const skipped = await destinations.deliveries(paused.destinationId, { status: 'skipped', limit: 10 });
      assert.equal(skipped.deliveries.length, 2);
      for (const record of [all, other, paused]) assert.equal(await destinations.remove(record.destinationId), true);
      assert.equal(await destinations.get(all.destinationId), undefined);
      assert.deepEqual((await destinations.deliveries(all.destinationId, { limit: 10 })).deliveries, []);
      assert.equal(await destinations.remove(all.destinationId), false);
    });

    it('without KASSA_EVENTS_URL an event no destination takes is not written, and one they take waits in their queues only', async () => {
      const { outbox, destinations } = store;
      const now = Date.now();
      const expire = async () => {
        const chk = checkout({ createdAt: now - 60_000, expiresAt: now - 1_000 });
        await store.insertCheckout(chk);
        assert.equal(await outbox.expireCheckouts(now, 100, expiryRule('sandbox')), 1);
        return (await outbox.listEvents({ limit: 200 })).events.filter((event) => event.checkoutId === chk.checkoutId);
      };
      const depth = (await outbox.depth()).pending;
      outbox.routeToEnvironment(false);
      try {
        assert.deepEqual(await expire(), [], 'settled, for no one');
        const { destinationId } = destinationRecord();
        await destinations.create(
          destinationRecord({ destinationId, disabledAt: now, disabledReason: 'Disabled by Test Admin' }),
        );
        const [event] = await expire();
        assert.equal(event?.status, 'delivered', 'the outbox owes it to no one');
        assert.equal((await outbox.depth()).pending, depth, 'nothing more waits in the outbox');
        assert.equal((await destinations.pendingCounts()).get(destinationId), 1, 'the disabled destination keeps it');
        await destinations.remove(destinationId);
      } finally {
        outbox.routeToEnvironment(true);
      }
    });

    it('a destination’s lease is one instance’s: another neither takes it nor ends it, even one that took it over once it ran out', async () => {
      const other = await opened.fleetmate();
      const [one, two] = [store.destinations, other.store.destinations];
      const destinationId = `dest_${randomUUID()}`;
      /** Whether `instance` takes the lease (a non-empty head). */
      const takes = async (instance: typeof one, leaseMs = 30_000) =>
        (await instance.claimHead(destinationId, Date.now(), 10, leaseMs)).length > 0;
      try {
        const now = Date.now();
        await one.create(destinationRecord({ destinationId }));
        await other.store.insertCheckout(checkout({ createdAt: now - 60_000, expiresAt: now - 1_000 }));
        await other.store.outbox.expireCheckouts(now, 100, expiryRule('sandbox'));
        assert.equal(await takes(one), true);
        assert.equal(await takes(two), false);
        await two.releaseLease(destinationId);
        assert.equal(await takes(two), false, 'still the first one’s');
        await one.releaseLease(destinationId);
        // The second takes it for a moment only; once that has run out the first takes it over, and
        // the second, ending a batch it was too slow for, leaves the first one's lease alone.
        assert.equal(await takes(two, 100), true);
        await new Promise((resolve) => setTimeout(resolve, 200));
        assert.equal(await takes(one), true, 'ran out: taken over');
        await two.releaseLease(destinationId);
        assert.equal(await takes(two), false, 'the first one’s still');
        await one.releaseLease(destinationId);
        assert.equal(await takes(two), true);
        await two.releaseLease(destinationId);
        await one.remove(destinationId);
      } finally {
        await other.close();
      }
    });

    it('a queued re-read is settled only by a read that began after it was last queued', async () => {
      const [first, second] = [randomUUID(), randomUUID()];
      const { reconciliation } = store;
      await reconciliation.queueReread(first, 1_000);
      await reconciliation.queueReread(second, 1_500);
      // Queued again during a read that began at 2_000: that read does not settle it.
      await reconciliation.queueReread(first, 2_500);
      await reconciliation.dequeueReread(first, 2_000);
      await reconciliation.dequeueReread(second, 2_000);
      assert.deepEqual(
        (await reconciliation.queuedRereads(100)).filter((id) => id === first || id === second),
        [first],
      );
      await reconciliation.dequeueReread(first, 3_000);
      await reconciliation.queueReread(second, 500);
      await reconciliation.dequeueReread(second);
      assert.deepEqual(
        (await reconciliation.queuedRereads(100)).filter((id) => id === first || id === second),
        [],
      );
    });
  });
}

describe('stores written by the previous version', () => {
  it('SQLite: its payments move forward with no end-to-end id or return page, which an update fills in', async () => {
    const old = mkdtempSync(join(tmpdir(), 'kassa-upgrade-'));
    const path = join(old, 'kassa.db');
    const made = payment({ endToEndId: null, returnUrl: null });
    const db = new Database(path);
    for (const sql of SQLITE_RELEASED.slice(0, 3)) db.exec(sql);
    db.pragma('user_version = 3');
    const { endToEndId: _e, returnUrl: _r, ...columns } = made;
    db.prepare(
      `INSERT INTO payments (transaction_id, status_token, idempotency_key, checkout_id, amount, currency_code, reference, environment, flow_url,
         status, network_status, network_payment_id, payment_rail, provider_id, initiated_at, updated_at, completed_at, created_at, last_checked_at, revision)
       VALUES (@transactionId, @statusToken, @idempotencyKey, @checkoutId, @amount, @currencyCode, @reference, @environment, @flowUrl,
         @status, @networkStatus, @networkPaymentId, @paymentRail, @providerId, @initiatedAt, @updatedAt, @completedAt, @createdAt, @lastCheckedAt, @revision)`,
    ).run(columns);
    db.close();
    const store = await openSqlite(path);
    try {
      assert.deepEqual(await store.paymentById(made.transactionId), made);
      const updated = await store.applyUpdate(
        made.transactionId,
        { ...made, status: 'COMPLETED', endToEndId: 'E2E0000000000000000000000001' },
        Date.now(),
      );
      assert.equal(updated?.endToEndId, 'E2E0000000000000000000000001');
      assert.equal((await store.paymentById(made.transactionId))!.endToEndId, 'E2E0000000000000000000000001');
    } finally {
      await store.close();
      rmSync(old, { recursive: true, force: true });
    }
  });

  it('Redis: a payment stored without the new fields reads with them null', async () => {
    const server = await startRedis();
    const redisConnections = await connectRedis(server.url);
    try {
      const prefix = `upgrade-${randomUUID()}:`;
      const made = payment({ endToEndId: null, returnUrl: null, lastCheckedAt: null });
      const { endToEndId: _e, returnUrl: _r, lastCheckedAt: _l, ...stored } = made;
      await redisConnections.command.set(redisKeys(prefix).payment(made.transactionId), JSON.stringify(stored));
      const store = new RedisStore(redisConnections.command, prefix);
      assert.deepEqual(await store.paymentById(made.transactionId), made);
    } finally {
      await redisConnections.close();
      await server.stop();
    }
  });
});

describe('PostgreSQL fleet', () => {
  it('a destination removed while an event is written for it leaves no delivery behind, whichever comes first, and the write does not fail', async () => {
    const url = await (await sharedPostgres()).createDatabase();
    const logger = createLogger({ level: 'error', sink: () => undefined, secrets: [] });
    const { store, coordination } = await openPostgres({ url, poolSize: 4, logger });
    // Another instance's transactions, held open where the test says.
    const db = new PostgresDatabase({ url, poolSize: 2, logger });
    const held = () => {
      let release!: () => void;
      let entered!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const inside = new Promise<void>((resolve) => (entered = resolve));
      return { gate, inside, release, entered };
    };
    /** Until `work` has settled, or waits for a row lock of this database (it is held, not raced). */
    const settledOrWaiting = async <T>(work: Promise<T>) => {
      let settled = false;
      void work.finally(() => (settled = true)).catch(() => undefined);
      for (;;) {
        const waiting = await db.row<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
        );
        if (settled || waiting!.n > 0) return;
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    };
    const orphans = async () =>
      (await db.row<{ n: number }>(
        `SELECT count(*)::int AS n FROM event_deliveries d
           WHERE NOT EXISTS (SELECT 1 FROM event_endpoints p WHERE p.endpoint_id = d.destination_id)`,
      ))!.n;
    const destination = async () => {
      const record = destinationRecord();
      await store.destinations.create(record);
      return record.destinationId;
    };
    try {
      // The event's transaction is open, its delivery written, when the removal comes: it waits, then takes it.
      const first = await destination();
      const writer = held();
      const writing = db.transaction(async (tx) => {
        const event = {
          eventId: `evt_${randomUUID()}`,
          type: 'checkout.expired' as const,
          transactionId: null,
          checkoutId: null,
          sequence: 1,
          createdAt: Date.now(),
          payload: '{}',
        };
        await insertEvents(tx, POSTGRES, [event], { environment: true });
        writer.entered();
        await writer.gate;
      });
      await writer.inside;
      const removal = store.destinations.remove(first);
      await settledOrWaiting(removal);
      writer.release();
      await writing;
      assert.equal(await removal, true);
      assert.equal(await orphans(), 0, 'removed with its delivery');
      // The removal's transaction is open when an event is written: the writer waits, then passes it over.
      const second = await destination();
      const remover = held();
      const removing = db.transaction(async (tx) => {
        await tx.run('DELETE FROM event_endpoints WHERE endpoint_id = ?', [second]);
        remover.entered();
        await remover.gate;
      });
      await remover.inside;
      const now = Date.now();
      await store.insertCheckout(checkout({ createdAt: now - 60_000, expiresAt: now - 1_000 }));
      const expiring = store.outbox.expireCheckouts(now, 100, expiryRule('sandbox'));
      await settledOrWaiting(expiring);
      remover.release();
      await removing;
      assert.equal(await expiring, 1, 'the event is written all the same');
      assert.equal(await orphans(), 0, 'and no delivery for the destination removed');
    } finally {
      await db.close();
      await coordination.close();
    }
  });
});
