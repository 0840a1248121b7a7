import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { QueuedDelivery } from '../../proxy/state/destinations.ts';
import type { PaymentEventRule } from '../../proxy/state/outbox.ts';
import type { Store } from '../../proxy/state/store.ts';
import { STORE_BACKENDS, type OpenedStore } from '../support/store-backends.ts';
import { destinationRecord, payment } from '../support/store-records.ts';

/**
 * A destination's queue on every store: in the order its deliveries were committed, which is the order
 * its log shows and its receiver gets them in, though an event is made before its transaction commits.
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
  });
}
