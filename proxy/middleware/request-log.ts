import { createMiddleware } from 'hono/factory';
import type { Logger } from '../logger.ts';
import type { ProxyMetrics } from '../metrics.ts';
import type { ProxyEnv } from '../proxy-env.ts';

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

/** One structured line per request: method, path with capabilities cut short, status, duration. */
export const requestLog = (options: RequestLogOptions) =>
  createMiddleware<ProxyEnv>(async function requestLog(c, next) {
    const started = performance.now();
    await next();
    options.metrics?.httpRequest(c.req.routePath, c.req.method, c.res.status, (performance.now() - started) / 1000);
    let path = c.req.path;
    for (const pattern of options.redactPaths ?? [])
      path = path.replace(pattern, (_match, prefix: string, secret: string) => `${prefix}${secret.slice(0, 4)}…`);
    const status = c.res.status;
    const fields = {
      method: c.req.method,
      path,
      status,
      ms: Math.round((performance.now() - started) * 10) / 10,
      requestId: c.get('requestId'),
    };
    if (status >= 500) options.logger.error('request', fields);
    else options.logger.info('request', fields);
  });
