import { Hono } from 'hono';
import { parseJsonBody } from '../../server-kit/json-body.ts';
import { executeReforgeRequestSchema, prepareReforgeRequestSchema } from '../../schemas/reforge.ts';
import type { LocalChains } from '../chains/local-chains.ts';
import type { Metrics } from '../metrics.ts';
import type { ReforgeExecutor } from './execute.ts';
import { prepareReforge } from './prepare.ts';
import { ReforgeError } from './reforge-error.ts';

export interface ReforgeApiDeps {
  chains: LocalChains;
  executor: ReforgeExecutor;
  metrics: Metrics;
  /** Where the sandbox's explorer pages are (`<origin>/explorer`), known once it listens. */
  explorerBase?: () => string;
}

/** The cross-chain transfer service under its base address (`.../v1/reforge`); every failure is 400 `{error}`. */
export function reforgeApi(deps: ReforgeApiDeps): Hono {
  const app = new Hono();

  app.onError((error, c) => {
    if (error instanceof ReforgeError) return c.json({ error: error.message }, 400);
    throw error;
  });

  app.get('/getChainsAndTokens', (c) => {
    deps.metrics.count('reforge.chains');
    return c.json(deps.chains.listing('main', deps.explorerBase?.()));
  });

  app.get('/getTestChainsAndTokens', (c) => {
    deps.metrics.count('reforge.testChains');
    return c.json(deps.chains.listing('test', deps.explorerBase?.()));
  });

  app.post('/prepareReforge', async (c) => {
    deps.metrics.count('reforge.prepare');
    const parsed = await parseJsonBody(c, prepareReforgeRequestSchema);
    if (!parsed.ok) throw new ReforgeError(parsed.error);
    return c.json({ status: true, tx: await prepareReforge(deps.chains, parsed.data) });
  });

  app.post('/executeReforge', async (c) => {
    deps.metrics.count('reforge.execute');
    const parsed = await parseJsonBody(c, executeReforgeRequestSchema);
    if (!parsed.ok) throw new ReforgeError(parsed.error);
    return c.json({ status: true, tx: await deps.executor.broadcast(parsed.data) });
  });

  app.post('/executeReforgeAsync', async (c) => {
    deps.metrics.count('reforge.executeAsync');
    const parsed = await parseJsonBody(c, executeReforgeRequestSchema);
    if (!parsed.ok) throw new ReforgeError(parsed.error);
    return c.json({ status: true, receipt: await deps.executor.mined(parsed.data) });
  });

  return app;
}
