import { Hono } from 'hono';
import { relayerChainRequestSchema, relayerRefundRequestSchema } from '../../schemas/sandbox.ts';
import { parseJsonBody } from '../../server-kit/json-body.ts';
import type { LocalChains } from './local-chains.ts';
import type { Relayer } from './relayer.ts';

/**
 * The relayer's controls (`/_sandbox/relayer`), to stage what a real bridge does now and then: hold
 * a chain's incoming mints (a transfer that is late), release them, or refund a held burn on its
 * own chain (a transfer the bridge gives back).
 */
export function relayerControl(relayer: Relayer, chains: LocalChains): Hono {
  const app = new Hono();

  app.get('/', (c) => c.json(relayer.holding()));

  for (const action of ['hold', 'release'] as const)
    app.post(`/${action}`, async (c) => {
      const parsed = await parseJsonBody(c, relayerChainRequestSchema);
      if (!parsed.ok) return c.json({ error: parsed.error }, 400);
      const { chainId } = parsed.data;
      if (!chains.byId(chainId)) return c.json({ error: `The sandbox has no chain ${chainId}` }, 404);
      relayer[action](chainId);
      return c.json(relayer.holding());
    });

  app.post('/refund', async (c) => {
    const parsed = await parseJsonBody(c, relayerRefundRequestSchema);
    if (!parsed.ok) return c.json({ error: parsed.error }, 400);
    if (!relayer.refund(parsed.data.burnId))
      return c.json({ error: 'No held burn has this id: hold its destination chain before it is minted' }, 404);
    return c.json(relayer.holding());
  });

  return app;
}
