import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { createLogger } from '../../proxy/logger.ts';
import { POSTGRES } from '../../proxy/state/postgres/database.ts';
import { schemaOf } from '../../proxy/state/sql/migrations.ts';
import { openPostgres, type PostgresBackend } from '../../proxy/state/postgres/open.ts';
import { StoreUnavailableError } from '../../proxy/state/store.ts';
import { startPostgres, type PostgresServer } from '../support/postgres-server.ts';
import { patiently } from '../support/patience.ts';
import { eventually } from '../support/stack.ts';
import { checkout } from '../support/store-records.ts';
import { startForwarder } from '../support/tcp-forwarder.ts';

const MIGRATIONS = schemaOf(POSTGRES);
const lines: string[] = [];
const logger = createLogger({ level: 'info', sink: (line) => lines.push(line), secrets: [] });
const open = (
  url: string,
  overrides: { statementTimeoutMs?: number; connectTimeoutMs?: number; poolSize?: number } = {},
) => openPostgres({ url, poolSize: 4, logger, ...overrides });

/** What only the PostgreSQL backend has: migrations, the driver's faults, notifications across a restart. */
describe('PostgreSQL backend', () => {
  let server: PostgresServer;
  before(async () => {
    server = await startPostgres();
  });
  after(() => server.stop());

  it('migrates once when three instances start together, and refuses a database newer than itself', async () => {
    const url = await server.createDatabase();
    const backends = await Promise.all([open(url), open(url), open(url)]);
    await Promise.all(backends.map((backend) => backend.coordination.close()));
    const database = new URL(url).pathname.slice(1);
    const [versions] = await server.sql('SELECT version FROM kassa_schema_versions ORDER BY version', database);
    assert.deepEqual(
      versions!.rows.map((row: { version: number }) => row.version),
      MIGRATIONS.map((_, index) => index + 1),
    );
    await server.sql(`INSERT INTO kassa_schema_versions (version) VALUES (${MIGRATIONS.length + 1})`, database);
    await assert.rejects(open(url), /KASSA_DATABASE_URL: .*newer than this Kassa/);
  });

  it('an instance starting while another migrates waits for it, longer than any request may take', async () => {
    const url = await server.createDatabase();
    const migrating = new pg.Client({ connectionString: url });
    await migrating.connect();
    try {
      // Another instance's long migration, as far as the lock is concerned.
      await migrating.query(`SELECT pg_advisory_lock(hashtextextended('kassa:migrate:public', 0))`);
      const started = Date.now();
      const opening = open(url, { statementTimeoutMs: 300 });
      await new Promise((resolve) => setTimeout(resolve, 1_500));
      await migrating.query(`SELECT pg_advisory_unlock(hashtextextended('kassa:migrate:public', 0))`);
      const backend = await opening;
      assert.ok(Date.now() - started >= 1_500, 'it waited for the lock');
      await backend.store.ping();
      await backend.coordination.close();
    } finally {
      await migrating.end();
    }
  });

  it('keeps working while a newer instance adds a column (a rolling deploy)', async () => {
    const url = await server.createDatabase();
    const backend = await open(url, { poolSize: 1 });
    try {
      const made = checkout();
      await backend.store.insertCheckout(made);
      assert.deepEqual(await backend.store.getCheckout(made.checkoutId), made);
      await server.sql('ALTER TABLE checkouts ADD COLUMN added_later TEXT', new URL(url).pathname.slice(1));
      assert.deepEqual(await backend.store.getCheckout(made.checkoutId), made);
    } finally {
      await backend.coordination.close();
    }
  });

  it('keeps shops sharing a database apart, each in its schema (search_path in the URL): tables and notifications', async () => {
    const url = new URL(await server.createDatabase());
    const database = url.pathname.slice(1);
    await server.sql('CREATE SCHEMA shop_a; CREATE SCHEMA shop_b', database);
    const inSchema = (schema: string) => `${url.href}?options=${encodeURIComponent(`-c search_path=${schema}`)}`;
    const [a, b] = await Promise.all([open(inSchema('shop_a')), open(inSchema('shop_b'))]);
    try {
      const made = checkout();
      await a.store.insertCheckout(made);
      assert.deepEqual(await a.store.getCheckout(made.checkoutId), made);
      assert.equal(await b.store.getCheckout(made.checkoutId), undefined);
      const [tables] = await server.sql(
        "SELECT table_schema FROM information_schema.tables WHERE table_name = 'checkouts' ORDER BY 1",
        database,
      );
      assert.deepEqual(
        tables!.rows.map((row: { table_schema: string }) => row.table_schema),
        ['shop_a', 'shop_b'],
      );
      const heard: string[] = [];
      b.coordination.purchaseChanges.subscribe('pur_shared', () => heard.push('b'));
      a.coordination.purchaseChanges.subscribe('pur_shared', () => heard.push('a'));
      await a.coordination.purchaseChanges.publish('pur_shared');
      await eventually(() => heard.length || undefined, "shop a's listener to hear its change");
      // Notifications reach a listener in the order they were made: had shop b's listener been sent
      // shop a's change, it would hear it before its own.
      await b.coordination.purchaseChanges.publish('pur_shared');
      await eventually(() => heard.includes('b') || undefined, "shop b's listener to hear its own change");
      assert.deepEqual(heard, ['a', 'b'], "one shop's changes never reach the other's listeners");
    } finally {
      await a.coordination.close();
      await b.coordination.close();
    }
  });

  it("tells the store's faults from Kassa's mistakes: a refused write is not an outage", async () => {
    const backend = await open(await server.createDatabase());
    try {
      const made = checkout();
      await backend.store.insertCheckout(made);
      const duplicate = await backend.store.insertCheckout(made).then(
        () => undefined,
        (error: unknown) => error,
      );
      assert.ok(duplicate instanceof Error && !(duplicate instanceof StoreUnavailableError), String(duplicate));
    } finally {
      await backend.coordination.close();
    }
  });

  it('readiness makes a write: a database that has turned read-only is unavailable, though it answers reads', async () => {
    const url = await server.createDatabase();
    const name = new URL(url).pathname.slice(1);
    const backend = await open(url, { poolSize: 1 });
    try {
      const made = checkout();
      await backend.store.insertCheckout(made);
      await backend.store.ping();
      await server.sql(`ALTER DATABASE ${name} SET default_transaction_read_only = on`);
      // The setting applies to new sessions: end the pool's one, as a restarted database would.
      await server.sql(`SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${name}'`);
      const refused = await eventually(
        () =>
          backend.store.ping().then(
            () => undefined,
            (error: unknown) => error,
          ),
        'readiness to refuse',
      );
      assert.ok(refused instanceof StoreUnavailableError, String(refused));
      assert.equal((await backend.store.getCheckout(made.checkoutId))?.checkoutId, made.checkoutId, 'reads answer');
    } finally {
      await server.sql(`ALTER DATABASE ${name} RESET default_transaction_read_only`);
      await backend.coordination.close();
    }
  });

  // The database never answers again, so a failure at all is the store's own timeouts at work (without
  // them, the calls would never settle, and `patiently` would reject with another error).
  it('a database that stops answering (no reset, no reply) fails requests all the same, as unavailable', async () => {
    const url = new URL(await server.createDatabase());
    const forwarder = await startForwarder(server.port);
    url.port = String(forwarder.port);
    const backend = await open(url.href, { statementTimeoutMs: 500, connectTimeoutMs: 500 });
    try {
      await backend.store.ping();
      forwarder.hold();
      await assert.rejects(patiently(backend.store.ping(), 'ping'), StoreUnavailableError);
      await assert.rejects(patiently(backend.store.getCheckout('chk_x'), 'getCheckout'), StoreUnavailableError);
    } finally {
      await backend.coordination.close();
      await forwarder.close();
    }
  });

  it('notifications: after the database restarts, listeners are told to look again, and changes flow again', async () => {
    const url = await server.createDatabase();
    let publisher: PostgresBackend | undefined;
    const listener = await open(url);
    try {
      publisher = await open(url);
      const heard: string[] = [];
      let resyncs = 0;
      listener.coordination.purchaseChanges.subscribe('pur_1', () => heard.push('pur_1'));
      listener.coordination.bus.onResync(() => resyncs++);
      await publisher.coordination.purchaseChanges.publish('pur_1');
      await eventually(() => (heard.length === 1 ? true : undefined), 'a change from another instance');
      await server.restart(async () => {
        await assert.rejects(publisher!.coordination.purchaseChanges.publish('pur_1'), StoreUnavailableError);
      });
      await eventually(() => (resyncs === 1 ? true : undefined), 'the listener back, and a resync');
      assert.ok(heard.length >= 2, 'change listeners look again after the reconnect');
      const count = heard.length;
      await eventually(async () => {
        await publisher!.coordination.purchaseChanges.publish('pur_1').catch(() => undefined);
        return heard.length > count ? true : undefined;
      }, 'changes flowing again');
      assert.ok(lines.some((line) => line.includes('database notifications back')));
    } finally {
      await publisher?.coordination.close();
      await listener.coordination.close();
    }
  });
});
