import { createMiddleware } from 'hono/factory';
import type { ProxyMetrics } from '../metrics.ts';

export interface HttpMetricsOptions {
  metrics: ProxyMetrics;
}

/**
 * Counts and times every request by its route pattern (`/api/payments/status/:statusToken`), never by
 * its path, so that tokens and ids never become label values.
 */
export const httpMetrics = (options: HttpMetricsOptions) =>
  createMiddleware(async function httpMetrics(c, next) {
    const started = performance.now();
    await next();
    options.metrics.httpRequest(c.req.routePath, c.req.method, c.res.status, (performance.now() - started) / 1000);
  });
