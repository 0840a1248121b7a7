import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { expiryRule } from '../../proxy/events/event-rules.ts';
import type { QueuedDelivery } from '../../proxy/state/destinations.ts';
import type { PaymentEventRule } from '../../proxy/state/outbox.ts';
import type { Store } from '../../proxy/state/store.ts';
import { STORE_BACKENDS, type OpenedStore } from '../support/store-backends.ts';
import { checkout, destinationRecord, payment } from '../support/store-records.ts';

/**
 * Event destinations on every store: an event fans out to each destination that takes it, and a
 * destination's queue is delivered by one instance at a time (its lease), in the order its deliveries
 * were committed, which is the order its log shows and its receiver gets them in, though an event is
 * made before its transaction commits.
 */
for (const backend of STORE_BACKENDS) {
  describe(`destination queue contract: ${backend.name}`, () => {
    let opened: OpenedStore;
    let store: Store;
    before(async () => ({ store } = opened = await backend.open()));
    after(() => opened.close());

    /** A payment completed by a transaction that commits now, with an event made at `at`, before it began. */
    const completedWithEvent = async (at: number) => {
      const made = payment({ status: 'PENDING' });
      await store.recordPayment(made);
      const eventId = `evt_${randomUUID()}`;
      const rule: PaymentEventRule = (_, next) => [
        {
          eventId,
          type: 'payment.completed',
          transactionId: next.transactionId,
          checkoutId: null,
          sequence: next.revision,
          createdAt: at,
          payload: '{}',
        },
      ];
      const update = { ...made, status: 'COMPLETED', completedAt: new Date(at).toISOString() };
      await store.applyUpdate(made.transactionId, update, Date.now(), rule);
      return eventId;
    };
    /** The head of a destination's queue, as a deliverer takes it for one batch. */
    const claimed = async (destinationId: string) => {
      const head = await store.destinations.claimHead(destinationId, Date.now(), 10, 30_000);
      await store.destinations.releaseLease(destinationId);
      return head;
    };
    const deliveredNow = (destinationId: string, eventId: string) =>
      store.destinations.settle(
        destinationId,
        eventId,
        { at: Date.now(), durationMs: 5, statusCode: 200, error: null },
        { status: 'delivered' },
      );

    it('a destination’s queue is in the order its deliveries were committed: an event made earlier but written later goes after the ones before it', async () => {
      const { destinations } = store;
      const { destinationId } = destinationRecord();
      await destinations.create(destinationRecord({ destinationId }));
      const t = Date.now();
      const first = await completedWithEvent(t);
      // Posted already when a transaction that made its event earlier, and was slower, commits.
      assert.deepEqual(
        (await claimed(destinationId)).map((delivery) => delivery.eventId),
        [first],
      );
      await deliveredNow(destinationId, first);
      const second = await completedWithEvent(t - 100);
      const third = await completedWithEvent(t - 200);
      const head = await claimed(destinationId);
      assert.deepEqual(
        head.map((delivery) => delivery.eventId),
        [second, third],
        'the queue: in the order committed, after the one posted',
      );
      const log = (await destinations.deliveries(destinationId, { limit: 10 })).deliveries;
      assert.deepEqual(
        log.map((delivery) => delivery.eventId),
        [third, second, first],
        'the log, newest first: the order the receiver gets them in',
      );
      const times = log.map((delivery) => delivery.createdAt).reverse();
      assert.ok(
        times.every((time, i) => i === 0 || time > times[i - 1]!),
        `each delivery’s time after the one before it: ${times.join(', ')}`,
      );
      assert.deepEqual(
        head.map((delivery) => delivery.createdAt),
        times.slice(1),
        'the queue and the log give the same times',
      );
      assert.equal((await store.outbox.getEvent(second))?.event.createdAt, t - 100, 'the event keeps its own time');
      await destinations.remove(destinationId);
    });

    it('a burst of 500 payments’ events to one destination at once: every one is written, none refused as contention', async () => {
      const { destinations } = store;
      const { destinationId } = destinationRecord();
      await destinations.create(destinationRecord({ destinationId }));
      const t = Date.now();
      const written = await Promise.all(Array.from({ length: 500 }, (_, i) => completedWithEvent(t - i)));
      assert.equal(new Set(written).size, 500);
      assert.equal((await destinations.pendingCounts()).get(destinationId), 500, 'each queued once');
      await destinations.remove(destinationId);
    });

    it('events written at once to two destinations: each receives its deliveries in the order its log shows, each once', async () => {
      const { destinations } = store;
      const ids = [destinationRecord().destinationId, destinationRecord().destinationId];
      for (const destinationId of ids) await destinations.create(destinationRecord({ destinationId }));
      const received = new Map(ids.map((id) => [id, [] as QueuedDelivery[]]));
      let writing = true;
      /** A deliverer meanwhile: each head as it comes, delivered at once. */
      const deliver = async (destinationId: string) => {
        for (;;) {
          const last = !writing;
          const head = await claimed(destinationId);
          for (const delivery of head) {
            await deliveredNow(destinationId, delivery.eventId);
            received.get(destinationId)!.push(delivery);
          }
          if (last && head.length === 0) return;
          if (head.length === 0) await sleep(5);
        }
      };
      const deliverers = ids.map(deliver);
      // Made in one order, committed in whatever order the store takes them.
      const t = Date.now();
      const written = await Promise.all(Array.from({ length: 12 }, (_, i) => completedWithEvent(t - 10 * i)));
      writing = false;
      await Promise.all(deliverers);
      for (const destinationId of ids) {
        const got = received.get(destinationId)!;
        const log = (await destinations.deliveries(destinationId, { limit: 20 })).deliveries.reverse();
        assert.deepEqual(
          got.map((delivery) => delivery.eventId),
          log.map((delivery) => delivery.eventId),
        );
        assert.deepEqual([...log.map((delivery) => delivery.eventId)].sort(), [...written].sort(), 'each once');
        const times = got.map((delivery) => delivery.createdAt);
        assert.ok(
          times.every((time, i) => i === 0 || time > times[i - 1]!),
          times.join(', '),
        );
        await destinations.remove(destinationId);
      }
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
  });
}
