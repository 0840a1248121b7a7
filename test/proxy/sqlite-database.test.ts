import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setImmediate as tick } from 'node:timers/promises';
import Database from 'better-sqlite3';
import { SqliteDatabase } from '../../proxy/state/sqlite/database.ts';

const open = () => {
  const db = new SqliteDatabase(new Database(':memory:'));
  return db
    .exec('CREATE TABLE counter (id INTEGER PRIMARY KEY, n INTEGER NOT NULL); INSERT INTO counter VALUES (1, 0)')
    .then(() => db);
};
const count = async (db: SqliteDatabase) => (await db.row<{ n: number }>('SELECT n FROM counter WHERE id = 1'))!.n;

/** better-sqlite3 has one connection and no awaits of its own: the adapter makes async transactions take turns. */
describe('SQLite: transactions on one connection', () => {
  it('take turns: each reads, waits a turn of the event loop and writes, and no increment is lost', async () => {
    const db = await open();
    await Promise.all(
      Array.from({ length: 20 }, () =>
        db.transaction(async (tx) => {
          const { n } = (await tx.row<{ n: number }>('SELECT n FROM counter WHERE id = 1'))!;
          await tick();
          await tx.run('UPDATE counter SET n = ? WHERE id = 1', [n + 1]);
        }),
      ),
    );
    assert.equal(await count(db), 20);
    await db.close();
  });

  it('a statement made while a transaction is open waits for it: it neither sees its writes early nor is rolled back with it', async () => {
    const db = await open();
    const failing = db.transaction(async (tx) => {
      await tx.run('UPDATE counter SET n = 100 WHERE id = 1');
      await tick();
      throw new Error('changed its mind');
    });
    const seen = count(db);
    const written = db.run('INSERT INTO counter VALUES (2, 7)');
    await assert.rejects(failing, /changed its mind/);
    assert.equal(await seen, 0, 'the rolled-back write was never seen');
    assert.equal(await written, 1);
    assert.equal((await db.row<{ n: number }>('SELECT n FROM counter WHERE id = 2'))?.n, 7, 'kept');
    await db.close();
  });

  it('runs in the order it was asked: a read asked after a transaction sees what it wrote', async () => {
    const db = await open();
    const order: string[] = [];
    const first = db.transaction(async (tx) => {
      await tick();
      await tx.run('UPDATE counter SET n = 1 WHERE id = 1');
      order.push('transaction');
    });
    const read = count(db).then((n) => order.push(`read ${n}`));
    await Promise.all([first, read]);
    assert.deepEqual(order, ['transaction', 'read 1']);
    await db.close();
  });
});
