import type { Context } from 'hono';
import { createMiddleware } from 'hono/factory';
import { HttpProblem } from '../http-problem.ts';

export interface BrowserOriginsOptions {
  /** The merchant's origins (KASSA_ALLOWED_ORIGINS). */
  origins: readonly string[];
  /** Methods the route answers browsers on. */
  methods?: readonly string[];
  /** Request headers a browser may send (Content-Type, Idempotency-Key, ...). */
  headers?: readonly string[];
  /** How long a browser may cache the preflight answer, in seconds. */
  maxAge?: number;
  /**
   * Where the proxy's own pages are served (a link's page, `/l/<code>`), for the routes those pages
   * call: that origin is taken beside the merchant's. Undefined (the default, or when not known): the
   * merchant's origins only.
   */
  ownOrigin?: (c: Context) => string | undefined;
}

const defaults = { methods: ['GET', 'POST'], headers: ['Content-Type', 'Idempotency-Key'], maxAge: 600 };

/**
 * The CORS headers an allowed Origin gets on an answer (none without an Origin), or `undefined` when
 * the Origin is foreign. Shared with the status-read lane, which must answer alike.
 */
export function originHeaders(
  origins: ReadonlySet<string>,
  origin: string | undefined,
): ReadonlyArray<[string, string]> | undefined {
  if (origin === undefined) return [];
  if (!origins.has(origin)) return undefined;
  // A page must see how long to wait after a 429 or 503, not only the status.
  return [
    ['Access-Control-Allow-Origin', origin],
    ['Access-Control-Expose-Headers', 'Retry-After'],
    ['Vary', 'Origin'],
  ];
}

/**
 * CORS for browser routes, for the merchant's origins only. A request that carries another Origin is
 * refused outright (403), not merely left without CORS headers: CORS keeps a foreign page from reading
 * the answer, not from causing the request.
 */
export const browserOrigins = (options: BrowserOriginsOptions) => {
  const { origins, methods, headers, maxAge, ownOrigin } = { ...defaults, ...options };
  const allowed = new Set(origins);
  return createMiddleware(async function browserOrigins(c, next) {
    const origin = c.req.header('Origin');
    const own = origin !== undefined && !allowed.has(origin) && ownOrigin?.(c) === origin;
    const cors = originHeaders(own ? new Set([origin]) : allowed, origin);
    if (!cors) throw new HttpProblem(403, 'This origin may not use this shop’s payment routes');
    for (const [name, value] of cors) c.header(name, value, { append: name === 'Vary' });
    if (c.req.method === 'OPTIONS') {
      c.header('Access-Control-Allow-Methods', methods.join(', '));
      c.header('Access-Control-Allow-Headers', headers.join(', '));
      c.header('Access-Control-Max-Age', String(maxAge));
      return c.body(null, 204);
    }
    await next();
  });
};
