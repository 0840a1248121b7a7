import { setTimeout as sleep } from 'node:timers/promises';
import { Hono, type Context } from 'hono';
import { livenessSchema, readinessSchema } from '../../schemas/proxy-api.ts';
import type { ApiOperation, ApiOperations } from '../http/openapi/operation.ts';
import type { ProxyServices } from '../services.ts';
import { StoreUnavailableError } from '../state/store.ts';

/** Why the proxy cannot take payments right now, in the words `/readyz` answers with. */
type NotReady =
  | { reason: 'store_unavailable'; detail: string }
  | { reason: 'invalid_client'; detail: string | null }
  | { reason: 'account_frozen'; freezeReason: string | null; frozenAt: string | null }
  | { reason: 'upstream_unreachable'; detail: string | null };

/** A probe gets its answer within this long, whatever the payment service does with the token request. */
const TOKEN_WAIT_MS = 2_000;

/**
 * Probes, Kubernetes style, open to anyone (they reveal no secret):
 * - `/livez` (and `/healthz`, its older name): the process answers. For a container's HEALTHCHECK and a
 *   liveness probe: a failure here means restart it.
 * - `/readyz`: the store takes a write and the payment credentials are usable. For load balancers and
 *   readiness probes: a failure here means send no customers, and look at the reason. Its `store` tells
 *   which store, and on Redis whether a Redis restart would lose data.
 */
export function probeRoutes({ store, storeInfo, tokens, health }: ProxyServices): Hono {
  const app = new Hono();
  const live = (c: Context) => c.json({ ok: true });
  app.get('/livez', live);
  app.get('/healthz', live);

  app.get('/readyz', async (c) => {
    const problem = await notReady();
    c.header('Cache-Control', 'no-store');
    return problem
      ? c.json({ ready: false, ...problem, store: storeInfo }, 503)
      : c.json({ ready: true, store: storeInfo });
  });

  async function notReady(): Promise<NotReady | undefined> {
    // A write, as payments need: a full disk or a read-only store answers a read all the same.
    const storeProblem = await store.ping().then(
      () => undefined,
      // Only the store's own words (disk full, Redis timed out); anything else could say too much.
      (error: unknown) => (error instanceof StoreUnavailableError ? error.message : 'the store failed'),
    );
    if (storeProblem !== undefined) return { reason: 'store_unavailable', detail: storeProblem };
    // A cached token costs nothing; an expired one is the exchange the next payment would make anyway,
    // and after a refusal the token manager holds back, so probes never spend the token budget.
    const answered = await Promise.race([
      tokens.token().then(
        () => true,
        () => true,
      ),
      sleep(TOKEN_WAIT_MS, false, { ref: false }),
    ]);
    if (!answered)
      return {
        reason: 'upstream_unreachable',
        detail: `the payment service has not answered a token request within ${TOKEN_WAIT_MS / 1000} s`,
      };
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
      200: {
        description: 'Ready',
        json: { schema: readinessSchema, example: { ready: true, store: { backend: 'sqlite' } } },
      },
      503: {
        description: 'Not ready, and why',
        json: {
          schema: readinessSchema,
          example: {
            ready: false,
            reason: 'account_frozen',
            freezeReason: 'compliance review',
            frozenAt: null,
            store: {
              backend: 'redis',
              persistence: 'none',
              warning: 'Redis keeps nothing on disk: a Redis restart loses every payment it holds',
            },
          },
        },
      },
    },
    errors: {},
  },
};
