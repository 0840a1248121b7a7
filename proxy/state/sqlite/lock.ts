import Database from 'better-sqlite3';
import { StoreOpenError } from '../store-open-error.ts';

/**
 * One proxy process per SQLite file. A second one on the same file would keep its own access token
 * and upstream budget, and its status streams would never hear of the changes the other one makes
 * (a fleet shares PostgreSQL or Redis instead, docs/scaling.md). The lock is SQLite's own file lock on a small
 * database beside the file (`<file>.lock`), taken in exclusive locking mode and held while the store
 * is open: the system lets go of it when the process ends, however it ends, and tools that read the
 * store itself (a backup, sqlite3) are not kept out.
 */
export function lockStoreFile(path: string): Database.Database {
  const lock = new Database(`${path}.lock`);
  try {
    lock.pragma('busy_timeout = 0');
    lock.pragma('locking_mode = EXCLUSIVE');
    lock.exec('BEGIN EXCLUSIVE; COMMIT');
    return lock;
  } catch (error) {
    lock.close();
    if (error instanceof Database.SqliteError && error.code === 'SQLITE_BUSY')
      throw new StoreOpenError(
        'KASSA_DB',
        path,
        'another Kassa proxy process is using this file; run one process per file (a fleet shares PostgreSQL or Redis: KASSA_DATABASE_URL, KASSA_REDIS_URL)',
      );
    throw error;
  }
}
