import { Hono } from 'hono';
import { parseJsonBody } from '../../server-kit/json-body.ts';
import { describeZodError } from '../../lib/zod-message.ts';
import { bridgeNetworkSchema, bridgePrepareRequestSchema } from '../../schemas/proxy-api.ts';
import { HttpProblem } from '../http-problem.ts';
import { browserOrigins } from '../middleware/browser-origins.ts';
import { clientRateLimit } from '../middleware/client-rate-limit.ts';
import { refusePrivateKeys } from '../middleware/refuse-private-keys.ts';
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
