/**
 * PostgreSQL with a fleet: a destination removed by one instance while another writes an event for
 * it, the two transactions held open in either order.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, it } from 'node:test';
import { expiryRule } from '../../proxy/events/event-rules.ts';
import { createLogger } from '../../proxy/logger.ts';
import { POSTGRES, PostgresDatabase } from '../../proxy/state/postgres/database.ts';
import { openPostgres } from '../../proxy/state/postgres/open.ts';
import { insertEvents } from '../../proxy/state/sql/outbox.ts';
import { sharedPostgres } from '../support/postgres-server.ts';
import { checkout, destinationRecord } from '../support/store-records.ts';

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
