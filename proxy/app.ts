import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { createMiddleware } from 'hono/factory';
import { requestId } from 'hono/request-id';
import { HttpProblem } from './http-problem.ts';
import { requestLog } from './middleware/request-log.ts';
import { securityHeaders } from './middleware/security-headers.ts';
import { openApiDocument } from './openapi.ts';
import { bridgeRoutes } from './routes/bridge-routes.ts';
import { handoffRoutes } from './routes/handoff-routes.ts';
import { merchantRoutes } from './routes/merchant-routes.ts';
import { operatorRoutes } from './routes/operator-routes.ts';
import { paymentRoutes } from './routes/payment-routes.ts';
import { webhookRoutes } from './routes/webhook-routes.ts';
import { widgetRoutes } from './routes/widget-routes.ts';
import type { ProxyServices } from './services.ts';
import { StoreUnavailableError } from './store/store.ts';

const API_BODY_LIMIT = 32 * 1024;
const HOOK_BODY_LIMIT = 64 * 1024;

/** The proxy's HTTP surface. Every error is `{ "error": "..." }` with a 4xx, or a logged 5xx. */
export function createApp(services: ProxyServices): Hono {
  const { logger } = services;
  const app = new Hono();
  const tooLarge = (limit: number) => {
    const limited = bodyLimit({
      maxSize: limit,
      onError: (c) => c.json({ error: `Request body is larger than ${limit} bytes` }, 413),
    });
    // Reading `body` makes the node adapter build a full Request; reads (the hot path) have none.
    return createMiddleware(async function bodyLimitForWrites(c, next) {
      return c.req.method === 'GET' || c.req.method === 'HEAD' || c.req.method === 'OPTIONS'
        ? next()
        : limited(c, next);
    });
  };

  app.use('*', requestId());
  app.use(
    '*',
    requestLog({
      logger,
      redactPaths: [/(\/hooks\/payments\/)([^/]+)/, /(\/api\/payments\/status\/)([^/]+)/, /^(\/p\/)([^/]+)/],
    }),
  );
  app.use('*', securityHeaders());
  app.use('/api/*', tooLarge(API_BODY_LIMIT));
  app.use('/hooks/*', tooLarge(HOOK_BODY_LIMIT));

  app.route('/', merchantRoutes(services));
  app.route('/', paymentRoutes(services));
  app.route('/', handoffRoutes(services));
  app.route('/', bridgeRoutes(services));
  app.route('/', operatorRoutes(services));
  app.route('/', webhookRoutes(services));
  app.route('/', widgetRoutes(services));
  const openapi = openApiDocument('0.1.0');
  app.get('/openapi.json', (c) => c.json(openapi));
  app.get('/healthz', async (c) =>
    services.store.ping().then(
      () => c.json({ ok: true }),
      () => c.json({ ok: false, error: 'The store is unavailable' }, 503),
    ),
  );

  app.notFound((c) =>
    c.json(
      {
        error: `Not found: ${c.req.method} ${c.req.path.startsWith('/hooks/') ? '/hooks/…' : c.req.path.slice(0, 200)}`,
      },
      404,
    ),
  );
  app.onError((error, c) => {
    if (error instanceof HttpProblem) {
      for (const [name, value] of Object.entries(error.headers)) c.header(name, value);
      return c.json(
        error.details === undefined ? { error: error.message } : { error: error.message, details: error.details },
        error.status,
      );
    }
    if (error instanceof StoreUnavailableError) {
      logger.warn('store unavailable', { error, method: c.req.method, path: c.req.routePath });
      c.header('Retry-After', '2');
      return c.json({ error: 'Kassa cannot reach its store right now; try again in a moment' }, 503);
    }
    logger.error('unhandled error', { error, method: c.req.method, path: c.req.routePath });
    return c.json({ error: 'Internal error' }, 500);
  });
  return app;
}
