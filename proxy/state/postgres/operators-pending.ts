import type { OperatorStore } from '../operators.ts';

/**
 * Operators are written once, in the SQL store that issue 36 makes of the SQLite and PostgreSQL
 * stores; until it lands, PostgreSQL refuses every operator call with this error (a 500 that says so).
 */
export function notOnPostgresYet(): OperatorStore {
  return new Proxy({} as OperatorStore, {
    get: (_target, property) =>
      typeof property === 'string' && property !== 'then'
        ? () =>
            Promise.reject(new Error(`operators are not kept on PostgreSQL yet (${property}): issue 36's SQL store`))
        : undefined,
  });
}
