import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import pg from 'pg';
import { createLogger } from '../../proxy/logger.ts';
import type { EventAttemptRecord, StoredEvent } from '../../proxy/state/outbox.ts';
import { openPostgres } from '../../proxy/state/postgres/open.ts';
import { POSTGRES } from '../../proxy/state/postgres/database.ts';
import { POSTGRES_RELEASED } from '../../proxy/state/postgres/schema.ts';
import type { PurchaseAuditRecord } from '../../proxy/state/purchases.ts';
import type { Resolution } from '../../proxy/state/reconciliation.ts';
import { MIGRATIONS, schemaOf } from '../../proxy/state/sql/migrations.ts';
import { openSqlite } from '../../proxy/state/sqlite/open.ts';
import { SQLITE_RELEASED } from '../../proxy/state/sqlite/schema.ts';
import type { Attempt, Store } from '../../proxy/state/store.ts';
import { sharedPostgres } from '../support/postgres-server.ts';
import { purchaseRecord } from '../support/purchase-records.ts';
import { checkout as freshCheckout, payment as freshPayment } from '../support/store-records.ts';

const NOW = Date.now();

/**
 * The schemas as released before the one SQL store, by digest (f2b0907's six SQLite versions and one
 * PostgreSQL version, and the on-ramp's next of each): the databases made then are made again from
 * these, and no released version may change.
 */
const RELEASED = {
  sqlite: [
    '1bda53071f5de79e',
    '5eedabc2d2baa097',
    'ec8ffeefb361386e',
    '8acd3051e16ec1f6',
    '156949583d6c1d8d',
    '2127855ab5760373',
    '100a2a584b7dae2a',
  ],
  postgres: ['1e909b6e2574a5e7', '7ead3ac722279039'],
};
/** The table the released PostgreSQL runner recorded each version in. */
const POSTGRES_VERSIONS =
  'CREATE TABLE kassa_schema_versions (version INTEGER PRIMARY KEY, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())';
const digest = (sql: string) => createHash('sha256').update(sql).digest('hex').slice(0, 16);

const checkout = freshCheckout({
  checkoutId: 'chk_old',
  metadata: '{"order":7}',
  createdAt: NOW - 60_000,
  currentAttempt: 'key-old',
});
const attempt: Attempt = {
  idempotencyKey: 'key-old',
  fingerprint: 'fp',
  checkoutId: checkout.checkoutId,
  statusToken: 'tok-old',
  state: 'succeeded',
  transactionId: 'tx-old',
  createdAt: NOW - 50_000,
};
const payment = freshPayment({
  transactionId: 'tx-old',
  statusToken: 'tok-old',
  idempotencyKey: 'key-old',
  checkoutId: checkout.checkoutId,
  networkStatus: 'AUTHORISED',
  paymentRail: 'SEPA_INSTANT',
  providerId: 'bank_x',
  createdAt: NOW - 50_000,
  lastCheckedAt: NOW - 30_000,
  revision: 3,
});
const pendingEvent: StoredEvent = {
  eventId: 'evt_pending',
  type: 'payment.completed',
  transactionId: payment.transactionId,
  checkoutId: checkout.checkoutId,
  sequence: 2,
  createdAt: NOW - 20_000,
  payload: '{"id":"evt_pending"}',
  status: 'pending',
  attempts: 3,
  nextAttemptAt: NOW - 1_000,
  deliveredAt: null,
  lastError: 'HTTP 500',
};
const failedEvent: StoredEvent = {
  ...pendingEvent,
  eventId: 'evt_failed',
  createdAt: NOW - 10_000,
  status: 'failed',
  nextAttemptAt: null,
};
/** Three attempts, the last two in the same millisecond: they keep the order they were written in. */
const attempts: EventAttemptRecord[] = [
  { at: NOW - 19_000, durationMs: 12.5, statusCode: 500, error: null },
  { at: NOW - 18_000, durationMs: 3, statusCode: null, error: 'connection refused' },
  { at: NOW - 18_000, durationMs: 4, statusCode: 500, error: null },
];
const resolutions: Resolution[] = [
  { transactionId: payment.transactionId, previousStatus: 'PENDING', status: 'FAILED', note: 'first', resolvedAt: NOW },
  {
    transactionId: payment.transactionId,
    previousStatus: 'FAILED',
    status: 'COMPLETED',
    note: 'then',
    resolvedAt: NOW,
  },
];
const purchase = purchaseRecord({ purchaseId: 'pur_old', createdAt: NOW - 5_000 });
const audit: PurchaseAuditRecord[] = [
  { action: 'retry-mint', note: 'one', at: NOW, previousState: 'delayed', state: 'minting', requestId: 'req-1' },
  { action: 'refund', note: null, at: NOW, previousState: 'delayed', state: 'refunded', requestId: null },
];
const quote = { quoteId: 'quo_other', expiresAt: NOW + 600_000, message: 'sign this' };

/** Writes a shop's worth of records into every table, as the released code wrote them. */
async function seed(run: (sql: string, values: unknown[]) => Promise<unknown>): Promise<void> {
  const row = async (table: string, values: Record<string, unknown>) =>
    run(
      `INSERT INTO ${table} (${Object.keys(values).join(', ')}) VALUES (${Object.keys(values)
        .map(() => '?')
        .join(', ')})`,
      Object.values(values),
    );
  const snake = (record: object) =>
    Object.fromEntries(
      Object.entries(record).map(([field, value]) => [field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), value]),
    );
  await row('checkouts', snake(checkout));
  await row('checkout_keys', {
    idempotency_key: 'chk-key',
    fingerprint: 'cfp',
    checkout_id: 'chk_old',
    created_at: NOW,
  });
  await row('attempts', snake(attempt));
  await row('payments', snake(payment));
  await row('webhook_events', {
    dedupe_key: 'hook-1',
    transaction_id: 'tx-old',
    received_at: NOW - 45_000,
    body: '{}',
  });
  for (const event of [pendingEvent, failedEvent]) await row('events', snake(event));
  for (const made of attempts) await row('event_attempts', { event_id: pendingEvent.eventId, ...snake(made) });
  await row('rereads', { transaction_id: 'tx-old', queued_at: NOW - 1_000 });
  await row('unverifiable', { transaction_id: 'tx-old', reason: 'not found', since: NOW - 2_000 });
  for (const made of resolutions) await row('resolutions', snake(made));
  await row('heartbeat', { id: 1, at: NOW - 3_000 });
  await row('onramp_quotes', { quote_id: quote.quoteId, expires_at: quote.expiresAt, record: JSON.stringify(quote) });
  const { purchaseId, purchaseToken, quoteId, checkoutId, wallet, symbol, tokensCents, state, createdAt } = purchase;
  await row('purchases', {
    ...snake({ purchaseId, purchaseToken, quoteId, checkoutId, wallet, symbol, tokensCents, state, createdAt }),
    idempotency_key: 'buy-key',
    tx_hash: null,
    lease_holder: 'instance-a',
    lease_until: NOW + 60_000,
    revision: 1,
    record: JSON.stringify(purchase),
  });
  for (const made of audit) await row('purchase_audit', { purchase_id: purchase.purchaseId, ...snake(made) });
}

/** Everything seeded reads back through today's store, and the store goes on writing beside it. */
async function readsBack(store: Store): Promise<void> {
  assert.deepEqual(await store.getCheckout(checkout.checkoutId), checkout);
  assert.deepEqual(await store.getAttempt(attempt.idempotencyKey), attempt);
  assert.deepEqual(await store.paymentById(payment.transactionId), payment);
  assert.deepEqual(await store.paymentByToken(payment.statusToken), payment);
  assert.deepEqual(
    await store.insertCheckout({ ...checkout, checkoutId: 'chk_new' }, { idempotencyKey: 'chk-key', fingerprint: 'x' }),
    {
      created: false,
      checkoutId: 'chk_old',
      fingerprint: 'cfp',
    },
  );
  const taken = await store.beginAttempt({
    idempotencyKey: 'key-new',
    fingerprint: 'fp',
    checkoutId: checkout.checkoutId,
    statusToken: 'tok-new',
    now: NOW,
    staleAfterMs: 60_000,
  });
  assert.equal(taken.outcome, 'checkout-taken', 'its live payment still holds the checkout');
  assert.equal(
    await store.recordWebhook({ dedupeKey: 'hook-1', transactionId: null, receivedAt: NOW, body: '' }),
    false,
  );
  assert.deepEqual(await store.outbox.getEvent(pendingEvent.eventId), { event: pendingEvent, attempts });
  assert.deepEqual(
    (await store.outbox.listEvents({ limit: 10 })).events.map((event) => event.eventId),
    [failedEvent.eventId, pendingEvent.eventId],
  );
  assert.deepEqual(
    (await store.outbox.claimDue(NOW, 10, 60_000)).map((event) => event.eventId),
    [pendingEvent.eventId],
  );
  await store.outbox.settle(
    pendingEvent.eventId,
    { at: NOW, durationMs: 5, statusCode: 204, error: null },
    { status: 'delivered' },
  );
  const settled = (await store.outbox.getEvent(pendingEvent.eventId))!;
  assert.deepEqual(
    settled.attempts.map((made) => made.durationMs),
    [12.5, 3, 4, 5],
  );
  assert.equal(settled.event.status, 'delivered');
  assert.deepEqual(await store.reconciliation.queuedRereads(10), ['tx-old']);
  assert.deepEqual(await store.reconciliation.unverifiableOf('tx-old'), {
    transactionId: 'tx-old',
    reason: 'not found',
    since: NOW - 2_000,
  });
  assert.deepEqual(await store.reconciliation.resolutions('tx-old'), resolutions);
  assert.deepEqual(await store.reconciliation.lastWebhook('tx-old'), { receivedAt: NOW - 45_000, body: '{}' });
  assert.deepEqual(await store.purchases.getQuote(quote.quoteId), quote);
  assert.deepEqual(await store.purchases.byToken(purchase.purchaseToken), purchase);
  assert.deepEqual(await store.purchases.audit(purchase.purchaseId), audit);
  assert.equal(await store.purchases.lease(purchase.purchaseId, 'instance-b', NOW, 1_000), false, 'its lease holds');
  const replay = await store.purchases.create({
    purchase: { ...purchase, purchaseId: 'pur_again' },
    idempotencyKey: 'buy-key',
    limitCents: null,
    windowStart: 0,
  });
  assert.deepEqual(replay, { outcome: 'replay', purchase });
  const completed = await store.applyUpdate(
    payment.transactionId,
    { ...payment, status: 'COMPLETED', completedAt: new Date(NOW).toISOString() },
    NOW,
  );
  assert.equal(completed?.revision, 4);
  await store.abandonAttempt('key-none');
  const gone = await store.outbox.countGone('ep_old', { after: 1, at: NOW, reason: 'gone' });
  assert.equal(gone.disabledAt, NOW, 'the versions after the released ones made their tables');
  await store.ping();
}

describe('stores made before the one SQL store open with nothing lost', () => {
  let dir: string;
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'kassa-upgrade-'));
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('the released schemas are as they were released', () => {
    assert.deepEqual(SQLITE_RELEASED.map(digest), RELEASED.sqlite);
    assert.deepEqual(POSTGRES_RELEASED.map(digest), RELEASED.postgres);
  });

  it('SQLite: a file at its last released version', async () => {
    const path = join(dir, 'kassa.db');
    const db = new Database(path);
    for (const sql of SQLITE_RELEASED) db.exec(sql);
    db.pragma(`user_version = ${RELEASED.sqlite.length}`);
    await seed(async (sql, values) => db.prepare(sql).run(...values));
    db.close();
    const store = await openSqlite(path);
    try {
      await readsBack(store);
    } finally {
      await store.close();
    }
    const reopened = new Database(path);
    assert.equal(reopened.pragma('user_version', { simple: true }), RELEASED.sqlite.length + MIGRATIONS.length);
    reopened.close();
  });

  it('PostgreSQL: a schema at its last released version', async () => {
    const url = await (await sharedPostgres()).createDatabase();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(POSTGRES_VERSIONS);
      for (const [index, sql] of POSTGRES_RELEASED.entries()) {
        await client.query(sql);
        await client.query('INSERT INTO kassa_schema_versions (version) VALUES ($1)', [index + 1]);
      }
      await seed((sql, values) => {
        let n = 0;
        return client.query(
          sql.replace(/\?/g, () => `$${++n}`),
          values,
        );
      });
      const { store, coordination } = await openPostgres({
        url,
        poolSize: 2,
        logger: createLogger({ level: 'error', sink: () => undefined, secrets: [] }),
      });
      try {
        await readsBack(store);
      } finally {
        await coordination.close();
      }
      const { rows } = await client.query<{ version: number }>('SELECT version FROM kassa_schema_versions ORDER BY 1');
      assert.deepEqual(
        rows.map((row) => row.version),
        schemaOf(POSTGRES).map((_, index) => index + 1),
      );
    } finally {
      await client.end();
    }
  });
});
