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

const unavailable = (error: unknown) => (isDiskFault(error) ? new StoreUnavailableError(error) : error);

/**
 * The object with each of its methods turning a disk fault into a StoreUnavailableError (so that the
 * caller answers 503, not 500); everything else passes through as it is.
 */
export function withDiskFaults<T extends object>(target: T): T {
  return new Proxy(target, {
    get(object, property) {
      const value: unknown = Reflect.get(object, property, object);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        try {
          const result: unknown = value.apply(object, args);
          return result instanceof Promise
            ? result.catch((error: unknown) => {
                throw unavailable(error);
              })
            : result;
        } catch (error) {
          throw unavailable(error);
        }
      };
    },
  });
}
