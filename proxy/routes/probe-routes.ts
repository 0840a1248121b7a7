import { Hono, type Context } from 'hono';
import { livenessSchema, readinessSchema } from '../../schemas/proxy-api.ts';
import type { ApiOperation, ApiOperations } from '../openapi/operation.ts';
import type { ProxyServices } from '../services.ts';

/** Why the proxy cannot take payments right now, in the words `/readyz` answers with. */
type NotReady =
  | { reason: 'store_unavailable' }
  | { reason: 'invalid_client'; detail: string | null }
  | { reason: 'account_frozen'; freezeReason: string | null; frozenAt: string | null }
  | { reason: 'upstream_unreachable'; detail: string | null };

/**
 * Probes, Kubernetes style, open to anyone (they reveal no secret):
 * - `/livez` (and `/healthz`, its older name): the process answers. For a container's HEALTHCHECK and a
 *   liveness probe: a failure here means restart it.
 * - `/readyz`: the store answers and the payment credentials are usable. For load balancers and
 *   readiness probes: a failure here means send no customers, and look at the reason.
 */
export function probeRoutes({ store, tokens, health }: ProxyServices): Hono {
  const app = new Hono();
  const live = (c: Context) => c.json({ ok: true });
  app.get('/livez', live);
  app.get('/healthz', live);

  app.get('/readyz', async (c) => {
    const problem = await notReady();
    c.header('Cache-Control', 'no-store');
    return problem ? c.json({ ready: false, ...problem }, 503) : c.json({ ready: true });
  });

  async function notReady(): Promise<NotReady | undefined> {
    const storeOk = await store.ping().then(
      () => true,
      () => false,
    );
    if (!storeOk) return { reason: 'store_unavailable' };
    // A cached token costs nothing; an expired one is the exchange the next payment would make anyway,
    // and after a refusal the token manager holds back, so probes never spend the token budget.
    await tokens.token().catch(() => undefined);
    const pay = health.pay;
    switch (pay.state) {
      case 'invalid_client':
      case 'rejected':
        return { reason: 'invalid_client', detail: pay.detail };
      case 'account_frozen':
        return { reason: 'account_frozen', freezeReason: pay.freezeReason, frozenAt: pay.frozenAt };
      case 'unreachable':
        return { reason: 'upstream_unreachable', detail: pay.detail };
      default:
        return undefined;
    }
  }
  return app;
}

const PROBE_ACCESS = {
  auth: 'public',
  because: 'probes are called by container runtimes and load balancers, and they reveal no secret.',
} as const;

const liveness: ApiOperation = {
  operationId: 'getLiveness',
  summary: 'Liveness probe',
  description: 'The process answers: for a container’s HEALTHCHECK and a liveness probe (a failure means restart it).',
  audience: 'infrastructure',
  access: PROBE_ACCESS,
  responses: { 200: { description: 'Alive', json: { schema: livenessSchema, example: { ok: true } } } },
  errors: {},
};

export const probeOperations: ApiOperations = {
  'GET /livez': liveness,
  'GET /healthz': {
    ...liveness,
    operationId: 'getLivenessLegacy',
    summary: 'Liveness probe (older name)',
    description: 'The older name of /livez.',
    deprecated: true,
  },
  'GET /readyz': {
    operationId: 'getReadiness',
    summary: 'Readiness probe',
    description:
      'The store answers and the payment credentials are usable: for load balancers and readiness probes (a failure means send no customers, and look at the reason). It never spends the token budget.',
    audience: 'infrastructure',
    access: PROBE_ACCESS,
    responses: {
      200: { description: 'Ready', json: { schema: readinessSchema, example: { ready: true } } },
      503: {
        description: 'Not ready, and why',
        json: {
          schema: readinessSchema,
          example: { ready: false, reason: 'account_frozen', freezeReason: 'compliance review', frozenAt: null },
        },
      },
    },
    errors: {},
  },
};
