import { Hono } from 'hono';
import { createMiddleware } from 'hono/factory';
import { UnauthenticatedError } from '../domain/domain-errors.ts';
import { bearerCheck } from '../http/middleware/require-bearer.ts';
import type { ApiOperations } from '../http/openapi/operation.ts';
import { operatorAuth, type OperatorEnv } from '../operator/operator-auth.ts';
import type { ProxyServices } from '../services.ts';

const SCRAPER_ONLY = 'Send Authorization: Bearer <KASSA_METRICS_TOKEN, or an operator credential with payments:read>';

/** `GET /metrics`, Prometheus text format, for KASSA_METRICS_TOKEN (a scraper's own) or an operator who may read payments. */
export function metricsRoutes({ config, metrics, operators }: ProxyServices): Hono<OperatorEnv> {
  const app = new Hono<OperatorEnv>();
  const scraperToken = config.metricsToken ? bearerCheck(config.metricsToken) : () => false;
  const operator = operatorAuth({ ...operators.access, permission: 'payments:read' });
  const scraper = createMiddleware<OperatorEnv>(async function metricsScraper(c, next) {
    if (scraperToken(c.req.header('Authorization'))) return next();
    try {
      return await operator(c, next);
    } catch (error) {
      // Either credential will do: a refused one is told about both, the scraper's first.
      if (error instanceof UnauthenticatedError) throw new UnauthenticatedError(SCRAPER_ONLY, 'KASSA_METRICS_TOKEN');
      throw error;
    }
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
      'Requests, upstream calls and budgets, payments, webhooks, events, streams and operators, in the Prometheus text format (docs/operations.md).',
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
    errors: {
      401: SCRAPER_ONLY,
      403: 'An operator credential whose role lacks payments:read',
    },
  },
};
