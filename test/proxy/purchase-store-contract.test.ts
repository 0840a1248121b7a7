import assert from 'node:assert/strict';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { Wallet } from 'ethers';
import pg from 'pg';
import { createLogger } from '../../proxy/logger.ts';
import type { NewEvent } from '../../proxy/state/outbox.ts';
import { POSTGRES_RELEASED } from '../../proxy/state/postgres/schema.ts';
import { openPostgres } from '../../proxy/state/postgres/open.ts';
import { InvalidPurchaseCursorError, type PurchaseRecord } from '../../proxy/state/purchases.ts';
import { connectRedis } from '../../proxy/state/redis/database.ts';
import { indexMember, redisKeys } from '../../proxy/state/redis/keys.ts';
import { RedisStore } from '../../proxy/state/redis/store.ts';
import { openSqlite } from '../../proxy/state/sqlite/open.ts';
import { SQLITE_RELEASED } from '../../proxy/state/sqlite/schema.ts';
import type { Store } from '../../proxy/state/store.ts';
import { sharedPostgres } from '../support/postgres-server.ts';
import { purchaseRecord, quoteRecord } from '../support/purchase-records.ts';
import { startRedis } from '../support/redis-server.ts';
import { STORE_BACKENDS } from '../support/store-backends.ts';

const DAY = 24 * 3_600_000;

const purchase = purchaseRecord;
const quote = quoteRecord;

const event = (purchaseId: string): NewEvent => ({
  eventId: `evt_${randomBytes(12).toString('base64url')}`,
  type: 'onramp.paid',
  transactionId: null,
  checkoutId: null,
  sequence: 2,
  createdAt: Date.now(),
  payload: JSON.stringify({ purchaseId }),
});

/** One contract, every store: the on-ramp relies on the same rules whichever backend keeps its purchases. */
for (const backend of STORE_BACKENDS) {
  describe(`purchase store contract: ${backend.name}`, () => {
    let store: Store;
    let close: () => Promise<void>;
    before(async () => ({ store, close } = await backend.open()));
    after(() => close());

    const create = (made: PurchaseRecord, options: { key?: string | null; limit?: number | null } = {}) =>
      store.purchases.create({
        purchase: made,
        idempotencyKey: options.key ?? null,
        limitCents: options.limit ?? null,
        windowStart: Date.now() - DAY,
      });

    it('keeps quotes, and forgets those expired before a time', async () => {
      const kept = quote();
      const old = quote({ expiresAt: Date.now() - 2 * DAY });
      await store.purchases.saveQuote(kept);
      await store.purchases.saveQuote(old);
      assert.deepEqual(await store.purchases.getQuote(kept.quoteId), kept);
      await store.purchases.forgetQuotes(Date.now() - DAY);
      assert.deepEqual(await store.purchases.getQuote(kept.quoteId), kept);
      // Redis forgets expired quotes by itself; SQLite when asked. Either way this one is gone or going.
      const forgotten = await store.purchases.getQuote(old.quoteId);
      assert.ok(forgotten === undefined || backend.name === 'Redis');
    });

    it('uses a quote once; the same Idempotency-Key answers the purchase it made', async () => {
      const made = purchase();
      assert.deepEqual(await create(made, { key: 'key-one-purchase' }), { outcome: 'created' });
      const replay = await create(purchase({ quoteId: made.quoteId }), { key: 'key-one-purchase' });
      assert.equal(replay.outcome, 'replay');
      assert.equal(replay.outcome === 'replay' && replay.purchase.purchaseId, made.purchaseId);
      assert.deepEqual(await create(purchase({ quoteId: made.quoteId }), { key: 'another-key-1' }), {
        outcome: 'quote-used',
      });
      assert.deepEqual(await create(purchase({ quoteId: made.quoteId })), { outcome: 'quote-used' });
      assert.deepEqual(await store.purchases.byId(made.purchaseId), made);
      assert.deepEqual(await store.purchases.byToken(made.purchaseToken), made);
      assert.deepEqual(await store.purchases.byCheckout(made.checkoutId), made);
      assert.equal(await store.purchases.byId('pur_missing'), undefined);
    });

    it("holds a wallet's limit when 30 purchases race for it", async () => {
      const wallet = Wallet.createRandom().address;
      const outcomes = await Promise.all(
        Array.from({ length: 30 }, () => create(purchase({ wallet, tokensCents: 100 }), { limit: 1000 })),
      );
      assert.equal(outcomes.filter((outcome) => outcome.outcome === 'created').length, 10);
      assert.ok(outcomes.every((outcome) => outcome.outcome === 'created' || outcome.outcome === 'limit'));
      assert.equal(await store.purchases.usedByWallet(wallet, 'eEUR', Date.now() - DAY), 1000);
      assert.equal(await store.purchases.usedByWallet(wallet, 'eGBR', Date.now() - DAY), 0, 'per coin');
    });

    it('counts against the limit only what took money and kept it, within the window', async () => {
      const wallet = Wallet.createRandom().address;
      const states = ['awaiting_payment', 'paid', 'delivered', 'failed', 'refunded', 'delayed'] as const;
      for (const state of states) await create(purchase({ wallet, state, tokensCents: 100 }));
      await create(purchase({ wallet, tokensCents: 5000, createdAt: Date.now() - DAY - 1_000 }));
      assert.equal(await store.purchases.usedByWallet(wallet, 'eEUR', Date.now() - DAY), 400);
    });

    it('changes a purchase only from the states given, with its events and audit in the same step', async () => {
      const made = purchase();
      await create(made);
      const moved = await store.purchases.update(made.purchaseId, { states: ['paid'] }, { state: 'minting' });
      assert.equal(moved.outcome, 'moved');
      const paid = await store.purchases.update(
        made.purchaseId,
        { states: ['awaiting_payment'] },
        { state: 'paid', paidAt: 123, transactionId: 'tx-1' },
        {
          events: (next) => [event(next.purchaseId)],
          audit: {
            action: 'retry-mint',
            note: 'n',
            at: 1,
            previousState: 'awaiting_payment',
            state: 'paid',
            requestId: 'r',
          },
        },
      );
      assert.equal(paid.outcome, 'updated');
      assert.equal(paid.outcome === 'updated' && paid.purchase.revision, 2);
      assert.equal((await store.purchases.byId(made.purchaseId))?.state, 'paid');
      const events = await store.outbox.listEvents({ type: 'onramp.paid', limit: 200 });
      assert.ok(events.events.some((stored) => stored.payload.includes(made.purchaseId)));
      assert.deepEqual(await store.purchases.audit(made.purchaseId), [
        { action: 'retry-mint', note: 'n', at: 1, previousState: 'awaiting_payment', state: 'paid', requestId: 'r' },
      ]);
      const again = await store.purchases.update(made.purchaseId, { states: ['awaiting_payment'] }, { state: 'paid' });
      assert.equal(again.outcome, 'moved', 'a second transition from the same state does nothing');
    });

    it('applies a change only to the purchase as its actor read it: the same revision, the same order', async () => {
      const made = purchase({ state: 'delayed', orderId: 'ord-1', orderIds: ['ord-1'], orderAttempts: 1 });
      await create(made);
      const read = { states: ['delayed'] as const, revision: made.revision, orderId: 'ord-1' };
      const first = await store.purchases.update(made.purchaseId, read, { state: 'paid', orderId: null });
      assert.equal(first.outcome, 'updated');
      const retried = (await store.purchases.byId(made.purchaseId))!;
      assert.equal(retried.revision, made.revision + 1);
      assert.deepEqual(retried.orderIds, ['ord-1'], 'the earlier order is kept');
      // A second actor that read the same purchase before the first one changed it: moved, whatever its states.
      const stale = await store.purchases.update(
        made.purchaseId,
        { states: ['delayed', 'paid'], revision: made.revision },
        { state: 'refunded' },
      );
      assert.equal(stale.outcome, 'moved');
      assert.equal(stale.outcome === 'moved' && stale.purchase?.state, 'paid');
      const otherOrder = await store.purchases.update(
        made.purchaseId,
        { states: ['paid'], revision: retried.revision, orderId: 'ord-1' },
        { state: 'refunded' },
      );
      assert.equal(otherOrder.outcome, 'moved', 'the order it acted on is no longer the current one');
      const ordered = await store.purchases.update(
        made.purchaseId,
        { states: ['paid'], revision: retried.revision, orderId: null },
        { state: 'minting', orderId: 'ord-2', orderIds: ['ord-1', 'ord-2'], orderAttempts: 2 },
      );
      assert.equal(ordered.outcome, 'updated');
      const now = await store.purchases.byId(made.purchaseId);
      assert.equal(now?.state, 'minting');
      assert.deepEqual(now?.orderIds, ['ord-1', 'ord-2']);
    });

    it('finds the work due first (paid, and minting or delayed due a look), whatever the backlog awaiting payment', async () => {
      const base = Date.now() + 20 * DAY;
      const backlog = Array.from({ length: 1_000 }, (_, i) => purchase({ createdAt: base - 100_000 + i }));
      for (let i = 0; i < backlog.length; i += 50) await Promise.all(backlog.slice(i, i + 50).map((p) => create(p)));
      const paid = purchase({ state: 'paid', createdAt: base });
      const looked = purchase({ state: 'minting', nextLookAt: base - 1_000, createdAt: base - 200_000 });
      const later = purchase({ state: 'delayed', nextLookAt: base + 60_000, createdAt: base - 300_000 });
      const done = purchase({ state: 'delivered', createdAt: base - 400_000 });
      for (const made of [paid, looked, later, done]) await create(made);
      const ours = new Set([...backlog, paid, looked, later, done].map((p) => p.purchaseId));
      const dueBy = async (at: number) =>
        (await store.purchases.due(at, 50)).filter((p) => ours.has(p.purchaseId)).map((p) => p.purchaseId);
      assert.deepEqual(await dueBy(base), [paid.purchaseId, looked.purchaseId], 'soonest first; none awaiting payment');
      assert.deepEqual(await dueBy(base + 60_000), [paid.purchaseId, looked.purchaseId, later.purchaseId]);
      // A look planned, and an end: the work is due then, or never.
      await store.purchases.update(
        paid.purchaseId,
        { states: ['paid'] },
        { state: 'minting', nextLookAt: base + 5_000 },
      );
      await store.purchases.update(looked.purchaseId, { states: ['minting'] }, { state: 'delivered' });
      assert.deepEqual(await dueBy(base), []);
      assert.deepEqual(await dueBy(base + 60_000), [paid.purchaseId, later.purchaseId]);
      const awaiting = await store.purchases.unsettled(['awaiting_payment'], 2_000);
      assert.ok(backlog.every((p) => awaiting.some((found) => found.purchaseId === p.purchaseId)));
    });

    it('gives a mint transaction to one purchase only', async () => {
      const [first, second] = [purchase({ state: 'minting' }), purchase({ state: 'minting' })];
      await create(first);
      await create(second);
      const txHash = `0x${randomBytes(32).toString('hex')}`;
      assert.equal(
        (await store.purchases.update(first.purchaseId, { states: ['minting'] }, { state: 'delivered', txHash }))
          .outcome,
        'updated',
      );
      assert.equal(
        (await store.purchases.update(second.purchaseId, { states: ['minting'] }, { state: 'delivered', txHash }))
          .outcome,
        'tx-taken',
      );
      assert.equal((await store.purchases.byId(second.purchaseId))?.state, 'minting');
    });

    it('leases a purchase to one holder at a time, until the lease ends or is given up', async () => {
      const made = purchase();
      await create(made);
      const now = Date.now();
      assert.equal(await store.purchases.leaseHolder(made.purchaseId, now), null, 'no one yet');
      assert.equal(await store.purchases.lease(made.purchaseId, 'a', now, 10_000), true);
      assert.equal(await store.purchases.lease(made.purchaseId, 'b', now, 10_000), false);
      assert.equal(await store.purchases.leaseHolder(made.purchaseId, Date.now()), 'a');
      assert.equal(await store.purchases.lease(made.purchaseId, 'a', now, 10_000), true, 'renewed by its holder');
      await store.purchases.unlease(made.purchaseId, 'b');
      assert.equal(
        await store.purchases.lease(made.purchaseId, 'b', now, 10_000),
        false,
        'only the holder gives it up',
      );
      await store.purchases.unlease(made.purchaseId, 'a');
      assert.equal(await store.purchases.leaseHolder(made.purchaseId, Date.now()), null, 'given up');
      assert.equal(await store.purchases.lease(made.purchaseId, 'b', now, 50), true);
      await new Promise((resolve) => setTimeout(resolve, 80));
      assert.equal(await store.purchases.leaseHolder(made.purchaseId, Date.now()), null, 'run out');
      assert.equal(await store.purchases.lease(made.purchaseId, 'c', Date.now(), 10_000), true, 'after it ends');
    });

    it('lists newest first by state and by wallet, in pages; the unsettled oldest first', async () => {
      const wallet = Wallet.createRandom().address;
      const base = Date.now() + 10 * DAY;
      const made = [0, 1, 2, 3, 4].map((i) =>
        purchase({ wallet, createdAt: base + i, state: i === 2 ? 'delivered' : 'awaiting_payment' }),
      );
      for (const item of made) await create(item);
      const first = await store.purchases.list({ wallet, limit: 2 });
      assert.deepEqual(
        first.purchases.map((p) => p.purchaseId),
        [made[4]!.purchaseId, made[3]!.purchaseId],
      );
      const second = await store.purchases.list({ wallet, limit: 10, cursor: first.nextCursor! });
      assert.deepEqual(
        second.purchases.map((p) => p.purchaseId),
        [made[2]!.purchaseId, made[1]!.purchaseId, made[0]!.purchaseId],
      );
      assert.equal(second.nextCursor, null);
      const delivered = await store.purchases.list({ wallet, state: 'delivered', limit: 10 });
      assert.deepEqual(
        delivered.purchases.map((p) => p.purchaseId),
        [made[2]!.purchaseId],
      );
      await assert.rejects(store.purchases.list({ limit: 5, cursor: 'bm9wZQ' }), InvalidPurchaseCursorError);
      const unsettled = (await store.purchases.unsettled(['awaiting_payment', 'paid'], 10_000)).filter(
        (p) => p.wallet === wallet,
      );
      assert.deepEqual(
        unsettled.map((p) => p.purchaseId),
        [made[0]!, made[1]!, made[3]!, made[4]!].map((p) => p.purchaseId),
      );
      assert.deepEqual(
        (await store.purchases.unsettled(['delayed'], 10_000)).filter((p) => p.wallet === wallet),
        [],
        'only the states asked for',
      );
    });
  });
}

/** A purchase as the previous version kept it: no earlier orders, no planned look. */
const previousVersion = (made: PurchaseRecord) => {
  const { orderIds: _orderIds, nextLookAt: _nextLookAt, ...kept } = made;
  return kept;
};
/** The migrations a database had before the one that plans the work due (later ones follow it). */
const releasedBefore = (migrations: readonly string[]) =>
  migrations.slice(
    0,
    migrations.findIndex((sql) => sql.includes('ADD COLUMN due_at')),
  );
const OLD_ROW = `INSERT INTO purchases (purchase_id, purchase_token, quote_id, idempotency_key, checkout_id, wallet, symbol,
  tokens_cents, state, created_at, tx_hash, revision, record) VALUES `;
const oldRow = (made: PurchaseRecord) => [
  made.purchaseId,
  made.purchaseToken,
  made.quoteId,
  null,
  made.checkoutId,
  made.wallet,
  made.symbol,
  made.tokensCents,
  made.state,
  made.createdAt,
  null,
  made.revision,
  JSON.stringify(previousVersion(made)),
];

describe('purchase stores written by the previous version', () => {
  // Delayed on its second order: the first one was stopped before the retry, and is not known any more.
  const delayed = () =>
    purchase({ state: 'delayed', orderId: 'ord-2', orderIds: ['ord-2'], orderAttempts: 2, revision: 7 });
  const waiting = () => purchase();
  const expectUpgraded = async (store: Store, made: PurchaseRecord[]) => {
    for (const item of made) assert.deepEqual(await store.purchases.byId(item.purchaseId), item);
    const due = (await store.purchases.due(Date.now(), 100)).map((p) => p.purchaseId);
    assert.deepEqual(due, [made[0]!.purchaseId], 'the delayed one is due a look; the one awaiting payment is not');
  };

  it('SQLite: the migration keeps the current order, and indexes the work due', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kassa-purchases-'));
    const path = join(dir, 'kassa.db');
    const made = [delayed(), waiting()];
    const db = new Database(path);
    const released = releasedBefore(SQLITE_RELEASED);
    for (const sql of released) db.exec(sql);
    db.pragma(`user_version = ${released.length}`);
    for (const item of made)
      db.prepare(
        `${OLD_ROW} (${oldRow(item)
          .map(() => '?')
          .join(', ')})`,
      ).run(...oldRow(item));
    db.close();
    const store = await openSqlite(path);
    try {
      await expectUpgraded(store, made);
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('PostgreSQL: the migration keeps the current order, and indexes the work due', async () => {
    const url = await (await sharedPostgres()).createDatabase();
    const made = [delayed(), waiting()];
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(
        'CREATE TABLE kassa_schema_versions (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())',
      );
      for (const [index, sql] of releasedBefore(POSTGRES_RELEASED).entries()) {
        await client.query(sql);
        await client.query('INSERT INTO kassa_schema_versions (version) VALUES ($1)', [index + 1]);
      }
      for (const item of made)
        await client.query(
          `${OLD_ROW} (${oldRow(item)
            .map((_, i) => `$${i + 1}`)
            .join(', ')})`,
          oldRow(item),
        );
    } finally {
      await client.end();
    }
    const { store, coordination } = await openPostgres({
      url,
      poolSize: 2,
      logger: createLogger({ level: 'error', sink: () => undefined, secrets: [] }),
    });
    try {
      await expectUpgraded(store, made);
    } finally {
      await coordination.close();
    }
  });

  it('Redis: purchases read with their current order, and the work due is indexed once', async () => {
    const server = await startRedis();
    const connections = await connectRedis(server.url);
    try {
      const prefix = `upgrade-${randomUUID()}:`;
      const key = redisKeys(prefix);
      const made = [delayed(), waiting()];
      for (const item of made) {
        const member = indexMember(item.createdAt, item.purchaseId);
        await connections.command.set(key.purchase(item.purchaseId), JSON.stringify(previousVersion(item)));
        await connections.command.zadd(key.purchasesByState(item.state), 0, member);
        await connections.command.zadd(key.purchasesOpen(), 0, member);
      }
      await expectUpgraded(new RedisStore(connections.command, prefix), made);
      assert.equal(await connections.command.exists(key.purchasesOpen()), 0, "the previous version's index is gone");
      // Another instance starting later finds the upgrade done.
      await expectUpgraded(new RedisStore(connections.command, prefix), made);
    } finally {
      await connections.close();
      await server.stop();
    }
  });
});
