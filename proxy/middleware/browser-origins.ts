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
}

const defaults = { methods: ['GET', 'POST'], headers: ['Content-Type', 'Idempotency-Key'], maxAge: 600 };

/**
 * CORS for browser routes, for the merchant's origins only. A request that carries another Origin is
 * refused outright (403), not merely left without CORS headers: CORS keeps a foreign page from reading
 * the answer, not from causing the request.
 */
export const browserOrigins = (options: BrowserOriginsOptions) => {
  const { origins, methods, headers, maxAge } = { ...defaults, ...options };
  const allowed = new Set(origins);
  return createMiddleware(async function browserOrigins(c, next) {
    const origin = c.req.header('Origin');
    if (origin !== undefined && !allowed.has(origin))
      throw new HttpProblem(403, 'This origin may not use this shop’s payment routes');
    if (origin) {
      c.header('Access-Control-Allow-Origin', origin);
      // A page must see how long to wait after a 429 or 503, not only the status.
      c.header('Access-Control-Expose-Headers', 'Retry-After');
      c.header('Vary', 'Origin', { append: true });
    }
    if (c.req.method === 'OPTIONS') {
      c.header('Access-Control-Allow-Methods', methods.join(', '));
      c.header('Access-Control-Allow-Headers', headers.join(', '));
      c.header('Access-Control-Max-Age', String(maxAge));
      return c.body(null, 204);
    }
    await next();
  });
};
