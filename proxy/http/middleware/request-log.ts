import { createMiddleware } from 'hono/factory';
import type { Logger } from '../../logger.ts';
import type { ProxyMetrics } from '../../monitoring/metrics.ts';
import type { ProxyEnv } from './request-id.ts';

export interface RequestLogOptions {
  logger: Logger;
  /** Path segments that are capabilities (status tokens, the webhook secret) and must not be logged whole. */
  redactPaths?: ReadonlyArray<RegExp>;
  /**
   * Counts and times the request for /metrics, by its route pattern (`/api/payments/status/:statusToken`),
   * never its path: here rather than in a middleware of its own, which would cost the hot path a layer.
   */
  metrics?: ProxyMetrics | undefined;
}

/** One answered request, as the log line and the metrics see it. */
export interface AnsweredRequest {
  method: string;
  path: string;
  /** The route pattern that answered (`/api/payments/status/:statusToken`). */
  route: string;
  status: number;
  /** `performance.now()` when the request arrived. */
  started: number;
  requestId: string;
}

/**
 * Writes one structured line per request (method, path with capabilities cut short, status, duration)
 * and counts it for /metrics. Shared by the middleware and the status-read fast lane, so both log alike.
 */
export function requestRecorder(options: RequestLogOptions): (request: AnsweredRequest) => void {
  const { logger, metrics, redactPaths = [] } = options;
  return ({ method, path, route, status, started, requestId }) => {
    const elapsed = performance.now() - started;
    metrics?.httpRequest(route, method, status, elapsed / 1000);
    for (const pattern of redactPaths)
      path = path.replace(pattern, (_match, prefix: string, secret: string) => `${prefix}${secret.slice(0, 4)}…`);
    const fields = { method, path, status, ms: Math.round(elapsed * 10) / 10, requestId };
    if (status >= 500) logger.error('request', fields);
    else logger.info('request', fields);
  };
}

/** The request log as middleware: records every request once it is answered. */
export const requestLog = (options: RequestLogOptions) => {
  const record = requestRecorder(options);
  return createMiddleware<ProxyEnv>(async function requestLog(c, next) {
    const started = performance.now();
    await next();
    record({
      method: c.req.method,
      path: c.req.path,
      route: c.req.routePath,
      status: c.res.status,
      started,
      requestId: c.get('requestId'),
    });
  });
};
