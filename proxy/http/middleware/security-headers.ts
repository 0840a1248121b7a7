import { createMiddleware } from 'hono/factory';

export interface SecurityHeadersOptions {
  /** Replaces or adds headers; a value of null leaves that header out. */
  headers?: Record<string, string | null>;
}

/** What an API that never serves pages wants: nothing may be framed, sniffed, or referred onward. */
const defaults: Record<string, string> = {
  'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Strict-Transport-Security': 'max-age=15552000; includeSubDomains',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

/** The headers as name/value pairs, defaults merged with the options; shared with the status-read lane. */
export function securityHeaderList(options: SecurityHeadersOptions = {}): ReadonlyArray<[string, string]> {
  return Object.entries({ ...defaults, ...options.headers }).filter(
    (entry): entry is [string, string] => entry[1] !== null,
  );
}

/**
 * Security headers, set before the route runs so a route may replace one (the widget's assets allow
 * cross-origin loading). Set this early they travel in the adapter's fast path, which matters on
 * the status-read hot path.
 */
export const securityHeaders = (options: SecurityHeadersOptions = {}) => {
  const headers = securityHeaderList(options);
  return createMiddleware(async function securityHeaders(c, next) {
    for (const [name, value] of headers) c.header(name, value);
    await next();
  });
};
