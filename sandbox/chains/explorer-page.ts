import { formatUnits, getAddress, isAddress, isHexString, type TransactionReceipt } from 'ethers';
import { Hono, type Context } from 'hono';
import { html } from 'hono/html';
import type { HtmlEscapedString } from 'hono/utils/html';
import { STABLECOINS } from '../../schemas/orders.ts';
import type { LocalChain, LocalChains } from './local-chains.ts';
import { TOKEN_INTERFACE } from './token-interface.ts';

/**
 * A minimal block explorer for the emulator's chains, so that receipts have somewhere to link to
 * (the chain listing's `blockExplorerUrl` is `<sandbox>/explorer/<chainId>`): a transaction's page
 * (status, block, from, to, the stablecoins it moved) and an address's page (its balances), read
 * from the chain's anvil node on each request. Plain HTML, no script, light or dark with the system.
 */
export function explorerPages(chains: LocalChains): Hono {
  const app = new Hono();
  const chainOf = (c: Context): LocalChain | undefined => {
    const id = c.req.param('chainId') ?? '';
    return /^[1-9]\d{0,15}$/.test(id) ? chains.byId(Number(id)) : undefined;
  };
  const notFound = (c: Context, what: string) => c.html(page('Not found', html`<p>${what}</p>`), 404);

  app.use('*', async (c, next) => {
    await next();
    c.header('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'");
    c.header('Cache-Control', 'no-store');
  });

  app.get('/:chainId/tx/:hash', async (c) => {
    const chain = chainOf(c);
    if (!chain) return notFound(c, 'The sandbox has no such chain.');
    const hash = c.req.param('hash');
    if (!isHexString(hash, 32)) return notFound(c, 'This is not a transaction hash.');
    const [tx, receipt] = await Promise.all([
      chain.provider.getTransaction(hash),
      chain.provider.getTransactionReceipt(hash),
    ]);
    if (!tx) return notFound(c, `Chain ${chain.chainId} has no transaction ${hash}.`);
    const status = !receipt ? 'Pending' : receipt.status === 1 ? 'Success' : 'Failed';
    return c.html(
      page(
        `Transaction ${hash}`,
        html`<p class="chain">${chain.name} (chain ${chain.chainId})</p>
          <dl>
            ${row('Hash', html`<code id="hash">${hash}</code>`)}
            ${row('Status', html`<span id="status">${status}</span>`)}
            ${row('Block', html`<span id="block">${tx.blockNumber ?? '–'}</span>`)}
            ${row('From', addressLink(chain, tx.from, 'from'))}
            ${row('To', tx.to ? addressLink(chain, tx.to, 'to') : html`<span id="to">–</span>`)}
            ${row('Value', html`${formatUnits(tx.value, 18)} ETH`)}
            ${receipt ? row('Gas used', html`${receipt.gasUsed.toString()}`) : ''}
          </dl>
          ${receipt ? tokenMoves(chain, receipt) : ''}`,
      ),
    );
  });

  app.get('/:chainId/address/:address', async (c) => {
    const chain = chainOf(c);
    if (!chain) return notFound(c, 'The sandbox has no such chain.');
    const raw = c.req.param('address');
    if (!isAddress(raw)) return notFound(c, 'This is not an address.');
    const address = getAddress(raw.toLowerCase());
    const balances = await Promise.all(
      STABLECOINS.map(async (symbol) => {
        const token = chain.tokens[symbol];
        const data = TOKEN_INTERFACE.encodeFunctionData('balanceOf', [address]);
        const [units] = TOKEN_INTERFACE.decodeFunctionResult(
          'balanceOf',
          await chain.provider.call({ to: token.address, data }),
        );
        return { symbol, amount: formatUnits(units as bigint, token.decimals) };
      }),
    );
    const ether = formatUnits(await chain.provider.getBalance(address), 18);
    return c.html(
      page(
        `Address ${address}`,
        html`<p class="chain">${chain.name} (chain ${chain.chainId})</p>
          <dl>
            ${row('Address', html`<code id="address">${address}</code>`)} ${row('ETH', ether)}
            ${balances.map(({ symbol, amount }) => row(symbol, html`<span data-symbol="${symbol}">${amount}</span>`))}
          </dl>`,
      ),
    );
  });

  app.all('*', (c) => notFound(c, 'The explorer has no such page.'));
  return app;
}

/** The stablecoins a transaction moved: its `Transfer` events (a burn goes to, a mint comes from, zero). */
function tokenMoves(chain: LocalChain, receipt: TransactionReceipt) {
  const moves = receipt.logs.flatMap((log) => {
    const symbol = STABLECOINS.find((candidate) => chain.tokens[candidate].address === log.address);
    const event = symbol ? TOKEN_INTERFACE.parseLog(log) : null;
    if (!symbol || event?.name !== 'Transfer') return [];
    const [from, to, value] = event.args as unknown as [string, string, bigint];
    const amount = `${formatUnits(value, chain.tokens[symbol].decimals)} ${symbol}`;
    const kind = BigInt(to) === 0n ? 'Burned' : BigInt(from) === 0n ? 'Minted' : 'Transferred';
    return [html`<li data-kind="${kind.toLowerCase()}">${kind} ${amount}</li>`];
  });
  return moves.length
    ? html`<h2>Tokens moved</h2>
        <ul id="moves">
          ${moves}
        </ul>`
    : '';
}

function addressLink(chain: LocalChain, address: string, id: string) {
  return html`<a id="${id}" href="/explorer/${chain.chainId}/address/${address}"><code>${address}</code></a>`;
}

function row(label: string, value: HtmlEscapedString | Promise<HtmlEscapedString> | string) {
  return html`<div>
    <dt>${label}</dt>
    <dd>${value}</dd>
  </div>`;
}

function page(title: string, body: HtmlEscapedString | Promise<HtmlEscapedString>) {
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        <title>${title} · Kassa sandbox explorer</title>
        <style>
          body {
            font:
              15px/1.5 system-ui,
              sans-serif;
            margin: 0 auto;
            padding: 1.5rem 1rem;
            max-width: 48rem;
          }
          h1 {
            font-size: 1.1rem;
            overflow-wrap: anywhere;
          }
          dt {
            font-weight: 600;
          }
          dd {
            margin: 0 0 0.5rem;
            overflow-wrap: anywhere;
          }
        </style>
      </head>
      <body>
        <main>
          <h1>${title}</h1>
          ${body}
        </main>
      </body>
    </html>`;
}
