import type { IncomingMessage, ServerResponse } from 'node:http';
import { addressOf } from '../../server-kit/client-address.ts';
import type { SlidingWindowLimiter } from '../../server-kit/sliding-window.ts';
import { isStatusToken } from '../../lib/status-token.ts';
import { originHeaders } from './middleware/browser-origins.ts';
import type { AnsweredRequest } from './middleware/request-log.ts';
import { requestIdFor } from './middleware/request-id.ts';
import type { PaymentRefresher } from '../payments/payment-refresher.ts';
import type { StatusCache } from '../payments/status-cache.ts';
import { PRIVATE_READ } from './cache-control.ts';

export interface StatusReadLaneOptions {
  statusCache: StatusCache;
  refresher: Pick<PaymentRefresher, 'refreshIfDue'>;
  /** The merchant's origins, as the route's CORS guard has them. */
  origins: readonly string[];
  /** The limiter of the route's own rate limit (shared, so a client's reads count once either way). */
  limiter: SlidingWindowLimiter;
  /** Reads per client per minute; 0: no limit. */
  rateLimit: number;
  trustProxy: boolean;
  /** Every other header the app would add (the security headers). */
  headers: ReadonlyArray<readonly [string, string]>;
  record: (request: AnsweredRequest) => void;
}

const PREFIX = '/api/payments/status/';
/** The app's route this lane answers for (its pattern, for logs and metrics, and for the API document's test). */
export const STATUS_READ_ROUTE = '/api/payments/status/:statusToken';

/**
 * The status read (`GET /api/payments/status/:statusToken`, what every open checkout polls) answered
 * straight on node:http when its answer is cached: same status, headers and body as the Hono route,
 * the same rate limit, log line and metrics, without building a Request, a Response and a context
 * and running a middleware chain for a few hundred bytes of JSON. Whenever the route would do more
 * than answer from the cache (a cold or stale entry, a foreign Origin, a spent rate limit, a
 * preflight, anything unusual in the request) the lane steps aside and the app answers.
 */
export function statusReadLane(options: StatusReadLaneOptions): (req: IncomingMessage, res: ServerResponse) => boolean {
  const { statusCache, refresher, limiter, rateLimit, trustProxy, record } = options;
  const origins = new Set(options.origins);
  const fixed = [...options.headers, ['Cache-Control', PRIVATE_READ], ['Content-Type', 'application/json']].flat();
  return function statusReadLane(req, res) {
    const url = req.url;
    if (req.method !== 'GET' || url === undefined || !url.startsWith(PREFIX)) return false;
    const query = url.indexOf('?');
    const token = url.slice(PREFIX.length, query === -1 ? undefined : query);
    if (!isStatusToken(token)) return false;
    const cached = statusCache.get(token);
    if (!cached) return false;
    const { headers } = req;
    const cors = originHeaders(origins, headers.origin);
    if (!cors) return false;
    const sentId = headers['x-request-id'];
    if (Array.isArray(sentId)) return false;
    const started = performance.now();
    if (rateLimit > 0) {
      const forwarded = headers['x-forwarded-for'];
      const address = addressOf(
        trustProxy && typeof forwarded === 'string' ? forwarded : undefined,
        () => req.socket.remoteAddress,
      );
      // A refused take records nothing, so the app's own check refuses alike and answers the 429.
      if (!limiter.take(address).allowed) return false;
    }
    const requestId = requestIdFor(sentId);
    void refresher.refreshIfDue(cached.payment, 'watch');
    res.writeHead(200, [
      'X-Request-Id',
      requestId,
      ...fixed,
      ...cors.flat(),
      'Content-Length',
      String(Buffer.byteLength(cached.json)),
    ]);
    res.end(cached.json);
    record({
      method: 'GET',
      path: url.slice(0, query === -1 ? undefined : query),
      route: STATUS_READ_ROUTE,
      status: 200,
      started,
      requestId,
    });
    return true;
  };
}
