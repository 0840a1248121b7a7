import { Hono } from 'hono';
import { smartWalletRequestSchema } from '../../schemas/sandbox.ts';
import { parseJsonBody } from '../../server-kit/json-body.ts';
import type { LocalChains } from './local-chains.ts';
import type { SmartWallets } from './smart-wallets.ts';

/** `POST /_sandbox/chains/{chainId}/smart-wallets {owner}`: deploys a contract wallet (EIP-1271) for `owner`. */
export function smartWalletControl(wallets: SmartWallets, chains: LocalChains): Hono {
  const app = new Hono();

  app.post('/:chainId/smart-wallets', async (c) => {
    const chain = chains.byId(Number(c.req.param('chainId')));
    if (!chain) return c.json({ error: `The sandbox has no chain ${c.req.param('chainId')}` }, 404);
    const parsed = await parseJsonBody(c, smartWalletRequestSchema);
    if (!parsed.ok) return c.json({ error: parsed.error }, 400);
    const address = await wallets.deploy(chain, parsed.data.owner);
    return c.json({ address, owner: parsed.data.owner, chainId: chain.chainId }, 201);
  });

  return app;
}
