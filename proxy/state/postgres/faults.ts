/**
 * Which PostgreSQL failures mean "the store is unavailable" (503 with Retry-After, nothing guessed)
 * rather than a bug (500). Kept apart so that the other backends' fault handling can change without
 * touching this one.
 */
import pg from 'pg';
import { StoreUnavailableError } from '../store.ts';

/**
 * SQLSTATEs of a database that cannot serve right now: connection exceptions (08), insufficient
 * resources (53: too many connections, disk full), operator intervention (57: a statement timeout
 * 57014, an administrator's shutdown 57P01, a crash 57P02, a server still starting 57P03), system
 * errors (58), a standby that refuses writes (25006, during a failover), lock timeouts (55P03).
 */
const UNAVAILABLE_CLASSES = new Set(['08', '53', '57', '58']);
const UNAVAILABLE_CODES = new Set(['25006', '55P03']);

/** Serialization failures and deadlocks: the transaction is run again. */
export const RETRYABLE_CODES = new Set(['40001', '40P01']);

/** The SQLSTATE of an error the server sent, undefined for anything else. */
export const sqlState = (error: unknown): string | undefined =>
  error instanceof pg.DatabaseError ? error.code : undefined;

/**
 * Whether an error of the driver means the database cannot be used now. Anything that is not the
 * server's answer (a refused or reset connection, a connect or read timeout, a pool being closed) is.
 */
export function isUnavailable(error: unknown): boolean {
  if (error instanceof StoreUnavailableError) return true;
  const code = sqlState(error);
  if (code === undefined) return true;
  // A protocol violation (08P01) is Kassa's own mistake (a statement and its parameters disagree).
  if (code === '08P01') return false;
  return UNAVAILABLE_CLASSES.has(code.slice(0, 2)) || UNAVAILABLE_CODES.has(code);
}

/** The error a store method throws: unavailability as StoreUnavailableError, anything else as it is. */
export function storeError(error: unknown): unknown {
  if (error instanceof StoreUnavailableError) return error;
  return isUnavailable(error) ? new StoreUnavailableError(error) : error;
}
