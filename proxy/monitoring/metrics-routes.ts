import { Hono } from 'hono';
import { createMiddleware } from 'hono/factory';
import { HttpProblem } from '../http/http-problem.ts';
import { bearerCheck } from '../http/middleware/require-bearer.ts';
import type { ApiOperations } from '../http/openapi/operation.ts';
import type { ProxyServices } from '../services.ts';

/** `GET /metrics`, Prometheus text format, for KASSA_METRICS_TOKEN (a scraper's own) or the operator token. */
export function metricsRoutes({ config, metrics }: ProxyServices): Hono {
  const app = new Hono();
  const checks = [config.operatorToken, ...(config.metricsToken ? [config.metricsToken] : [])].map(bearerCheck);
  const scraper = createMiddleware(async function metricsScraper(c, next) {
    const authorization = c.req.header('Authorization');
    if (!checks.some((matches) => matches(authorization)))
      throw new HttpProblem(401, 'Send Authorization: Bearer <KASSA_METRICS_TOKEN or KASSA_OPERATOR_TOKEN>', {
        'WWW-Authenticate': 'Bearer realm="KASSA_METRICS_TOKEN"',
      });
    await next();
  });
  app.get('/metrics', scraper, async (c) =>
    c.body(await metrics.registry.metrics(), 200, {
      'Content-Type': metrics.registry.contentType,
      'Cache-Control': 'no-store',
    }),
  );
  return app;
}

export const metricsOperations: ApiOperations = {
  'GET /metrics': {
    operationId: 'getMetrics',
    summary: 'Prometheus metrics',
    description:
      'Requests, upstream calls and budgets, payments, webhooks, events and streams, in the Prometheus text format (docs/operations.md).',
    audience: 'infrastructure',
    access: { auth: 'scraper' },
    responses: {
      200: {
        description: 'The metrics',
        text: {
          contentType: 'text/plain',
          description: 'Prometheus text format 0.0.4',
          example:
            '# TYPE kassa_webhooks_received_total counter\nkassa_webhooks_received_total{result="accepted"} 12\n',
        },
      },
    },
    errors: { 401: 'Send Authorization: Bearer <KASSA_METRICS_TOKEN or KASSA_OPERATOR_TOKEN>' },
  },
};
