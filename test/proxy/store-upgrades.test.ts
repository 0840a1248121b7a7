/**
 * Stores the previous version wrote: their records read as this version's, and move on. Each store
 * is written by hand as the older code left it.
 */
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { connectRedis } from '../../proxy/state/redis/database.ts';
import { redisKeys } from '../../proxy/state/redis/keys.ts';
import { RedisStore } from '../../proxy/state/redis/store.ts';
import { openSqlite } from '../../proxy/state/sqlite/open.ts';
import { SQLITE_RELEASED } from '../../proxy/state/sqlite/schema.ts';
import { startRedis } from '../support/redis-server.ts';
import { payment } from '../support/store-records.ts';

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
