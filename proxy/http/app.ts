import { Hono, type Env } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { createMiddleware } from 'hono/factory';
import { HttpProblem } from './http-problem.ts';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SlidingWindowLimiter } from '../../server-kit/sliding-window.ts';
import { requestId, type ProxyEnv } from './middleware/request-id.ts';
import { requestLog, requestRecorder, type RequestLogOptions } from './middleware/request-log.ts';
import { securityHeaderList, securityHeaders } from './middleware/security-headers.ts';
import { openApiDocument } from './openapi/document.ts';
import type { ApiOperations } from './openapi/operation.ts';
import { apiDocsRoutes, apiReferenceOperations, openApiOperations } from './openapi/api-docs-routes.ts';
import { bridgeOperations, bridgeRoutes } from '../bridge/bridge-routes.ts';
import { eventOperations, eventRoutes } from '../events/event-routes.ts';
import { handoffOperations, handoffRoutes } from '../handoff/handoff-routes.ts';
import { merchantOperations, merchantRoutes } from '../payments/merchant-routes.ts';
import { operatorOperations, operatorRoutes } from '../operator/operator-routes.ts';
import { operatorAccountOperations, operatorAccountRoutes } from '../operator/operator-account-routes.ts';
import { deviceOperations, deviceRoutes } from '../operator/device-routes.ts';
import { teamOperations, teamRoutes } from '../operator/team-routes.ts';
import { approvalOperations, approvalRoutes } from '../operator/approval-routes.ts';
import { auditOperations, auditRoutes } from '../operator/audit-routes.ts';
import { passkeyOperations, passkeyRoutes } from '../operator/signin/passkey-routes.ts';
import { pageOperations, pageRoutes } from '../operator/signin/page-routes.ts';
import { signinOperations, signinRoutes } from '../operator/signin/signin-routes.ts';
import { ssoOperations, ssoRoutes } from '../operator/signin/sso-routes.ts';
import { metricsOperations, metricsRoutes } from '../monitoring/metrics-routes.ts';
import { onrampOffRoutes, onrampOperations, onrampRoutes } from '../onramp/onramp-routes.ts';
import { purchaseOperations, purchaseRoutes } from '../onramp/purchase-routes.ts';
import { paymentOperations, paymentRoutes } from '../payments/payment-routes.ts';
import { paymentSearchOperations, paymentSearchRoutes } from '../payments/payment-search-routes.ts';
import { probeOperations, probeRoutes } from '../monitoring/probe-routes.ts';
import { reconciliationOperations, reconciliationRoutes } from '../payments/reconciliation-routes.ts';
import { statusReadLane } from './status-read-lane.ts';
import { webhookOperations, webhookRoutes } from '../payments/webhook-routes.ts';
import { widgetOperations, widgetRoutes } from './widget-routes.ts';
import type { ProxyServices } from '../services.ts';
import { KASSA_VERSION } from '../version.ts';
import { StoreUnavailableError } from '../state/store.ts';

const API_BODY_LIMIT = 32 * 1024;
const HOOK_BODY_LIMIT = 64 * 1024;

export interface ProxyHttp {
  app: Hono<ProxyEnv>;
  /** Answers cached status reads on node:http before the app (see status-read-lane.ts); false passes on. */
  preempt: (request: IncomingMessage, response: ServerResponse) => boolean;
}

/** The proxy's HTTP surface. Every error is `{ "error": "..." }` with a 4xx, or a logged 5xx. */
export function createApp(services: ProxyServices): ProxyHttp {
  const { logger, config } = services;
  const app = new Hono<ProxyEnv>();
  const log: RequestLogOptions = {
    logger,
    metrics: services.httpMetrics ? services.metrics : undefined,
    redactPaths: [/(\/hooks\/payments\/)([^/]+)/, /(\/api\/payments\/status\/)([^/]+)/, /^(\/[pr]\/)([^/]+)/],
  };
  const readLimiter = new SlidingWindowLimiter(config.rateLimit, 60_000);
  const tooLarge = (limit: number) => {
    const limited = bodyLimit({
      maxSize: limit,
      onError: () => {
        throw new HttpProblem(413, `Request body is larger than ${limit} bytes`);
      },
    });
    // Reading `body` makes the node adapter build a full Request; reads (the hot path) have none.
    return createMiddleware(async function bodyLimitForWrites(c, next) {
      return c.req.method === 'GET' || c.req.method === 'HEAD' || c.req.method === 'OPTIONS'
        ? next()
        : limited(c, next);
    });
  };

  app.use('*', requestId());
  app.use('*', requestLog(log));
  app.use('*', securityHeaders());
  app.use('/api/*', tooLarge(API_BODY_LIMIT));
  app.use('/operator/*', tooLarge(API_BODY_LIMIT));
  app.use('/hooks/*', tooLarge(HOOK_BODY_LIMIT));

  // Each routes module describes its operations beside its routes: the document is made of those
  // tables, and test/proxy/openapi.test.ts fails for a route that none describes.
  const operations: ApiOperations[] = [];
  const mount = <E extends Env>(routes: Hono<E>, described: ApiOperations) => {
    app.route('/', routes);
    operations.push(described);
  };
  mount(merchantRoutes(services), merchantOperations);
  mount(paymentRoutes(services, { readLimiter }), paymentOperations);
  mount(handoffRoutes(services), handoffOperations);
  mount(bridgeRoutes(services), bridgeOperations);
  // The on-ramp's routes exist only when it is on (KASSA_ONRAMP_COINS); otherwise they answer that it is off.
  if (services.onramp) {
    mount(onrampRoutes(services), onrampOperations);
    mount(purchaseRoutes(services), purchaseOperations);
  } else app.route('/', onrampOffRoutes(services));
  mount(reconciliationRoutes(services), reconciliationOperations);
  mount(paymentSearchRoutes(services), paymentSearchOperations);
  mount(operatorRoutes(services), operatorOperations);
  mount(operatorAccountRoutes(services), operatorAccountOperations);
  mount(deviceRoutes(services), deviceOperations);
  mount(teamRoutes(services), teamOperations);
  mount(approvalRoutes(services), approvalOperations);
  mount(auditRoutes(services), auditOperations);
  mount(signinRoutes(services), signinOperations);
  mount(passkeyRoutes(services), passkeyOperations);
  mount(pageRoutes(services), pageOperations);
  // Signing in with the company's provider exists only when one is set up (KASSA_OIDC_ISSUER).
  if (services.signin.sso) mount(ssoRoutes(services), ssoOperations);
  mount(eventRoutes(services), eventOperations);
  mount(webhookRoutes(services), webhookOperations);
  mount(widgetRoutes(services), widgetOperations);
  mount(probeRoutes(services), probeOperations);
  mount(metricsRoutes(services), metricsOperations);
  operations.push(openApiOperations, ...(config.apiDocs ? [apiReferenceOperations] : []));
  app.route('/', apiDocsRoutes(services, { document: openApiDocument({ version: KASSA_VERSION, operations }) }));

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
        {
          error: error.message,
          ...(error.details === undefined ? {} : { details: error.details }),
          ...error.fields,
        },
        error.status,
      );
    }
    if (error instanceof StoreUnavailableError) {
      logger.warn('store unavailable', { error, method: c.req.method, path: c.req.routePath });
      c.header('Retry-After', '2');
      return c.json({ error: 'Kassa cannot reach its store right now; try again in a moment' }, 503);
    }
    if (isClientAbort(error)) {
      // The client hung up while sending: nothing went wrong in the proxy, and no one reads the answer.
      logger.info('request aborted by the client', { method: c.req.method, path: c.req.routePath });
      return c.json({ error: 'The request was aborted before its body arrived' }, 400);
    }
    logger.error('unhandled error', { error, method: c.req.method, path: c.req.routePath });
    return c.json({ error: 'Internal error' }, 500);
  });
  const preempt = statusReadLane({
    statusCache: services.statusCache,
    refresher: services.refresher,
    origins: config.allowedOrigins,
    limiter: readLimiter,
    rateLimit: config.rateLimit,
    trustProxy: config.trustProxy,
    headers: securityHeaderList(),
    record: requestRecorder(log),
  });
  return { app, preempt };
}

/** A request body cut off by the client (Node's `aborted`, a reset connection), not a proxy fault. */
function isClientAbort(error: Error): boolean {
  const code = (error as Error & { code?: unknown }).code;
  return error.message === 'aborted' || code === 'ECONNRESET' || code === 'ERR_STREAM_PREMATURE_CLOSE';
}
