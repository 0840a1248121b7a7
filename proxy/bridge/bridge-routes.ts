import { Hono } from 'hono';
import { parseJsonBody } from '../../server-kit/json-body.ts';
import { describeZodError } from '../../lib/zod-message.ts';
import {
  bridgeChainsSchema,
  bridgeNetworkSchema,
  bridgePrepareRequestSchema,
  bridgePrepareResponseSchema,
} from '../../schemas/proxy-api.ts';
import { HttpProblem } from '../http/http-problem.ts';
import { browserOrigins } from '../http/middleware/browser-origins.ts';
import { clientRateLimit } from '../http/middleware/client-rate-limit.ts';
import { refusePrivateKeys } from '../http/middleware/refuse-private-keys.ts';
import { bridgePreparedExample, bridgePrepareExample, chainsExample } from '../http/openapi/examples.ts';
import type { ApiOperations } from '../http/openapi/operation.ts';
import { BAD_BODY, FOREIGN_ORIGIN, RATE_LIMITED, UPSTREAM_FOR_CLIENTS } from '../http/openapi/problems.ts';
import type { ProxyServices } from '../services.ts';

/**
 * The wallet panel's routes: the chain listing and prepare. There is no execute route: the user's own
 * wallet signs and broadcasts, and a body that carries key material is refused before anything else.
 */
export function bridgeRoutes({ config, chains }: ProxyServices): Hono {
  const app = new Hono();
  const browser = browserOrigins({
    origins: config.allowedOrigins,
    methods: ['GET', 'POST'],
    headers: ['Content-Type'],
  });
  const reads = clientRateLimit({ name: 'bridge-reads', limit: config.rateLimit, trustProxy: config.trustProxy });
  const prepares = clientRateLimit({
    name: 'bridge-prepares',
    limit: config.createRateLimit,
    trustProxy: config.trustProxy,
  });

  app.options('/api/bridge/*', browser);

  app.get('/api/bridge/chains', browser, reads, async (c) => {
    const network = bridgeNetworkSchema.safeParse(c.req.query('network') ?? 'test');
    if (!network.success) throw new HttpProblem(400, describeZodError(network.error));
    c.header('Cache-Control', 'public, max-age=30');
    return c.json(await chains.list(network.data));
  });

  app.post('/api/bridge/prepare', browser, prepares, refusePrivateKeys({ scanValues: true }), async (c) => {
    const parsed = await parseJsonBody(c, bridgePrepareRequestSchema);
    if (!parsed.ok) throw new HttpProblem(400, parsed.error);
    return c.json(await chains.prepare(parsed.data));
  });

  return app;
}

/** The bridge routes never read the store: no 503. */
const BRIDGE_ERRORS = {
  403: FOREIGN_ORIGIN,
  429: `${RATE_LIMITED}; or Kassa’s budget of requests to the cross-chain service is spent for now`,
  502: UPSTREAM_FOR_CLIENTS[502],
};

const NETWORK = {
  network: { description: 'main or test (default test)', schema: bridgeNetworkSchema.optional() },
};

export const bridgeOperations: ApiOperations = {
  'GET /api/bridge/chains': {
    operationId: 'listBridgeChains',
    summary: 'Chains and tokens for the wallet panel',
    description: 'The chains the cross-chain service serves and their tokens; cached for a minute.',
    audience: 'browser',
    access: { auth: 'public', because: 'it lists public chain data for the wallet panel on any shop page.' },
    query: NETWORK,
    responses: { 200: { description: 'The chains', json: { schema: bridgeChainsSchema, example: chainsExample } } },
    errors: { ...BRIDGE_ERRORS, 400: 'network must be main or test' },
  },
  'POST /api/bridge/prepare': {
    operationId: 'prepareBridgeTransfer',
    summary: 'Prepare a cross-chain transfer',
    description:
      'The unsigned EIP-1559 transaction that burns the tokens on the source chain; the user’s own wallet signs and sends it, never Kassa. A body that carries key material is refused before anything else.',
    audience: 'browser',
    access: {
      auth: 'public',
      because:
        'the transaction it answers moves nothing until the user’s own wallet signs it; creations are rate limited.',
    },
    request: { schema: bridgePrepareRequestSchema, example: bridgePrepareExample },
    responses: {
      200: {
        description: 'The unsigned transaction',
        json: { schema: bridgePrepareResponseSchema, example: bridgePreparedExample },
      },
    },
    errors: { ...BRIDGE_ERRORS, 400: `${BAD_BODY}; or the cross-chain service refused it (its own words)` },
  },
};
