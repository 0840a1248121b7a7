import Database from 'better-sqlite3';
import { StoreUnavailableError } from '../store.ts';

/**
 * SQLite's answers that mean the disk or the file cannot serve right now, not a bug: the disk is full,
 * the file or its mount is read-only, an I/O error, another process holds it too long, it cannot be
 * opened. Requests then get 503 with Retry-After, as when Redis is away.
 */
const UNAVAILABLE = /^SQLITE_(FULL|READONLY|IOERR|BUSY|LOCKED|CANTOPEN|NOMEM)/;

export function isDiskFault(error: unknown): error is Database.SqliteError {
  return error instanceof Database.SqliteError && UNAVAILABLE.test(error.code);
}

/** The error a statement fails with: a disk fault as StoreUnavailableError (503, not 500), anything else as it is. */
export const storeError = (error: unknown): unknown => (isDiskFault(error) ? new StoreUnavailableError(error) : error);
