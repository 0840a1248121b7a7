import { Hono, type Env } from 'hono';
import { answerErrors } from './error-answers.ts';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { SlidingWindowLimiter } from '../../server-kit/sliding-window.ts';
import { bodyLimit } from './middleware/body-limit.ts';
import { jsonContentType } from './middleware/json-content-type.ts';
import { requestId, type ProxyEnv } from './middleware/request-id.ts';
import { requestLog, requestRecorder, type RequestLogOptions } from './middleware/request-log.ts';
import { securityHeaderList, securityHeaders } from './middleware/security-headers.ts';
import { openApiDocument } from './openapi/document.ts';
import type { ApiOperations } from './openapi/operation.ts';
import { apiDocsRoutes, apiReferenceOperations, openApiOperations } from './openapi/api-docs-routes.ts';
import { bridgeOperations, bridgeRoutes } from '../bridge/bridge-routes.ts';
import { destinationOperations, destinationRoutes } from '../events/destination-routes.ts';
import { eventOperations, eventRoutes } from '../events/event-routes.ts';
import { handoffOperations, handoffRoutes } from '../handoff/handoff-routes.ts';
import { linkOperations, linkRoutes } from '../links/link-routes.ts';
import { linkOperatorOperations, linkOperatorRoutes } from '../links/link-operator-routes.ts';
import { counterOperations, counterRoutes } from '../links/counter-routes.ts';
import { merchantOperations, merchantRoutes } from '../payments/merchant-routes.ts';
import { merchantKeyOperations, merchantKeyRoutes } from '../payments/merchant-key-routes.ts';
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
import type { ProxyConfig } from '../config.ts';
import type { ProxyServices } from '../services.ts';
import { KASSA_VERSION } from '../version.ts';

const API_BODY_LIMIT = 32 * 1024;
const HOOK_BODY_LIMIT = 64 * 1024;

export interface ProxyHttp {
  app: Hono<ProxyEnv>;
  /** Answers cached status reads on node:http before the app (see status-read-lane.ts); false passes on. */
  preempt: (request: IncomingMessage, response: ServerResponse) => boolean;
}

/**
 * The proxy's HTTP surface. Every error is `{ "error": "..." }` with a 4xx, or a logged 5xx; which
 * error is which answer is error-answers.ts's.
 */
export function createApp(services: ProxyServices): ProxyHttp {
  const { logger, config } = services;
  const app = new Hono<ProxyEnv>();
  const log: RequestLogOptions = {
    logger,
    metrics: services.httpMetrics ? services.metrics : undefined,
    redactPaths: [/(\/hooks\/payments\/)([^/]+)/, /(\/api\/payments\/status\/)([^/]+)/, /^(\/[pr]\/)([^/]+)/],
  };
  const readLimiter = new SlidingWindowLimiter(config.rateLimit, 60_000);
  app.use('*', requestId());
  app.use('*', requestLog(log));
  app.use('*', securityHeaders());
  app.use('/api/*', bodyLimit({ maxSize: API_BODY_LIMIT }));
  app.use('/api/*', jsonContentType());
  // The sign-in and device routes take forms too (RFC 8628's token request), so no JSON rule here.
  app.use('/operator/*', bodyLimit({ maxSize: API_BODY_LIMIT }));
  app.use('/hooks/*', bodyLimit({ maxSize: HOOK_BODY_LIMIT }));

  // Each routes module describes its operations beside its routes: the document is made of those
  // tables, and test/proxy/openapi.test.ts fails for a route that none describes.
  const operations: ApiOperations[] = [];
  const mount = <E extends Env>(routes: Hono<E>, described: ApiOperations) => {
    app.route('/', routes);
    operations.push(described);
  };
  mount(merchantRoutes(services), merchantOperations);
  mount(merchantKeyRoutes(services), merchantKeyOperations);
  mount(linkRoutes(services), linkOperations);
  mount(linkOperatorRoutes(services), linkOperatorOperations);
  mount(counterRoutes(services), counterOperations);
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
  mount(destinationRoutes(services), destinationOperations);
  mount(webhookRoutes(services), webhookOperations);
  mount(widgetRoutes(services), widgetOperations);
  mount(probeRoutes(services), probeOperations);
  mount(metricsRoutes(services), metricsOperations);
  operations.push(openApiOperations, ...(config.apiDocs ? [apiReferenceOperations] : []));
  const document = openApiDocument({ version: KASSA_VERSION, operations, configured: configuredSchemas(config) });
  app.route('/', apiDocsRoutes(services, { document }));

  app.notFound((c) =>
    c.json(
      {
        error: `Not found: ${c.req.method} ${c.req.path.startsWith('/hooks/') ? '/hooks/…' : c.req.path.slice(0, 200)}`,
      },
      404,
    ),
  );
  app.onError(answerErrors(logger));
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

/** What the document lists from this proxy's settings rather than from the schemas alone. */
function configuredSchemas({ openAmount }: ProxyConfig) {
  return {
    OpenAmountCurrencyCode: openAmount
      ? { type: 'string', enum: [openAmount.currencyCode], description: 'The currency of open amounts here' }
      : { not: {}, description: 'Open amounts are off on this proxy (KASSA_OPEN_AMOUNT): none is taken' },
  };
}
