import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { migrate } from '../sql/migrations.ts';
import { SqlStore } from '../sql/store.ts';
import { StoreOpenError } from '../store-open-error.ts';
import { SqliteDatabase } from './database.ts';
import { lockStoreFile } from './lock.ts';

/**
 * The embedded store: one SQLite file in WAL mode, migrated at open, used by one process at a time
 * (lock.ts). A file that cannot be opened or migrated (a full disk, a read-only mount, another
 * process holding it) fails with a StoreOpenError that names it. `lock: false` is for
 * `kassa-proxy operators` and `audit`, which make short transactions on the file beside a running
 * proxy (whose one-process lock is on `<file>.lock`, not on the file itself).
 */
export async function openSqlite(path: string, options: { lock?: boolean } = {}): Promise<SqlStore> {
  let lock: Database.Database | undefined;
  let file: Database.Database | undefined;
  try {
    if (path !== ':memory:') {
      mkdirSync(dirname(path), { recursive: true });
      if (options.lock !== false) lock = lockStoreFile(path);
    }
    file = new Database(path);
    file.pragma('journal_mode = WAL');
    file.pragma('synchronous = NORMAL');
    file.pragma('foreign_keys = ON');
    file.pragma('busy_timeout = 5000');
    const db = new SqliteDatabase(file, lock);
    await migrate(db);
    return new SqlStore(db);
  } catch (error) {
    file?.close();
    lock?.close();
    if (error instanceof StoreOpenError) throw error;
    throw new StoreOpenError('KASSA_DB', path, `cannot open the store: ${(error as Error).message}`);
  }
}
