/**
 * Operators, approvals and the audit are written once, in the SQL store that issue 36 makes of the
 * SQLite and PostgreSQL stores; until it lands, PostgreSQL refuses each of their calls with this error
 * (a 500 that says so).
 */
export function notOnPostgresYet<T extends object>(): T {
  return new Proxy({} as T, {
    get: (_target, property) =>
      typeof property === 'string' && property !== 'then'
        ? () =>
            Promise.reject(new Error(`operators are not kept on PostgreSQL yet (${property}): issue 36's SQL store`))
        : undefined,
  });
}
