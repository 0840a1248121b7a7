/**
 * The demo shop: a merchant's own web server, on its own origin. Its server side creates a checkout
 * through the proxy with kassa/server and the merchant key (which never reaches the page), receives
 * the proxy's signed events and marks an order paid only on a verified `checkout.paid`; its pages
 * embed <kassa-checkout> with one script tag from the proxy, under a strict Content-Security-Policy.
 */
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Hono, type Context } from 'hono';
import { getCookie, setCookie } from 'hono/cookie';
import { html } from 'hono/html';
import { compressPages, EncodedFiles, sendEncoded } from '../server-kit/encoded-files.ts';
import { listen, type Listening } from '../server-kit/listen.ts';
import { SANDBOX_TEST_ADDRESS } from '../lib/sandbox-account.ts';
import { createKassaClient, KassaError, type MerchantCheckout } from '../server/index.ts';
import { shopEvents } from './shop-events.ts';

export interface ShopProxy {
  /** The proxy's origin on this computer: the shop's server and the Kassa extension reach it there. */
  origin: string;
  /**
   * Where customers' browsers reach it, when not at `origin`: its LAN address (`npm start -- --lan`),
   * so that the QR codes of "Pay with your phone" lead a phone there.
   */
  browserOrigin?: string;
  /** KASSA_MERCHANT_KEY: stays on this server. */
  merchantKey: string;
}

export interface ShopOptions {
  /** 0 picks a free port. */
  port: number;
  /** More addresses to listen on besides loopback, on the same port (the LAN address of `--lan`). */
  alsoOn?: readonly string[];
  /** Read on each request, so a proxy that restarts on another port is followed. */
  proxy: () => ShopProxy;
  /** What an order costs. */
  price?: { amount: string; currencyCode: string };
  /**
   * KASSA_EVENTS_SECRET, shared with the proxy: events arrive at POST /kassa/events. Without it the
   * shop takes no events and no order is ever confirmed by its server.
   */
  eventsSecret?: string;
}

const CONFIRMED = "Paid, confirmed by the shop's server";

const COOKIE = 'kassa_demo_checkout';
/** The demo moves test stablecoins only: the sandbox's chains are test networks. */
const BRIDGE_NETWORK = 'test';
const LOCALES = ['en', 'de', 'fr', 'es', 'nl'];
const PUBLIC = new URL('./public/', import.meta.url);
/**
 * The pages are made for each visitor (their order, the proxy's origin): the browser asks afresh each
 * time, but may keep a page in its back/forward cache, which `no-store` would forbid.
 */
const PAGE_CACHE = 'private, no-cache';

/** What a page may reach beyond the proxy: the wallet page reads the chains' RPC and shows wallet icons. */
interface PageSources {
  connect: string[];
  img: string[];
}

/**
 * The headers of every page: scripts only from the shop itself and the proxy, no inline script or
 * style anywhere, Trusted Types for the DOM (Lit's templates use their own policy, `lit-html`).
 */
function contentSecurityPolicy(proxy: string, extra: PageSources = { connect: [], img: [] }): string {
  return [
    "default-src 'none'",
    `script-src 'self' ${proxy}`,
    "style-src 'self'",
    ["img-src 'self'", ...extra.img].join(' '),
    [`connect-src ${proxy}`, ...extra.connect].join(' '),
    "form-action 'self'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
    "require-trusted-types-for 'script'",
    'trusted-types lit-html',
  ].join('; ');
}

export async function startShop(options: ShopOptions): Promise<Listening> {
  const price = options.price ?? { amount: '42.50', currencyCode: 'EUR' };
  const app = new Hono();
  app.use(compressPages());

  const events = shopEvents({ secret: () => options.eventsSecret ?? [] });
  /** The proxy's origin in the pages, as the customer's browser reaches it. */
  const browserProxy = () => {
    const { origin, browserOrigin } = options.proxy();
    return browserOrigin ?? origin;
  };
  /** A client per call: the proxy's origin may change when it restarts. */
  const kassa = () => {
    const { origin, merchantKey } = options.proxy();
    return createKassaClient({ proxyUrl: origin, merchantKey });
  };

  /** The order in this browser's cart: kept in a cookie until it expires or the customer starts a new one. */
  const currentCheckout = async (c: Context): Promise<MerchantCheckout> => {
    const kept = getCookie(c, COOKIE);
    if (kept) {
      const checkout = await kassa()
        .checkouts.get(kept)
        .catch((error: unknown) => {
          if (error instanceof KassaError && error.status === 404) return undefined;
          throw error;
        });
      if (checkout && checkout.state !== 'expired') return checkout;
    }
    const reference = `ORDER-${randomBytes(3).toString('hex').toUpperCase()}`;
    const checkout = await kassa().checkouts.create({ ...price, reference, metadata: { cart: ['Kassa T-shirt'] } });
    setCookie(c, COOKIE, checkout.checkoutId, { httpOnly: true, sameSite: 'Lax', path: '/' });
    return checkout;
  };

  /**
   * The origins of the chains' RPC URLs, which the wallet panel reads balances, receipts and arrivals
   * from, and the on-ramp the buyer's balance: asked from the proxy's own listing (as the elements
   * do: the bridge's chains, or the on-ramp's offer), kept for a minute.
   */
  const rpcOrigins = new Map<string, { at: number; proxy: string; origins: string[] }>();
  const chainRpcOrigins = async (listing: 'bridge' | 'onramp'): Promise<string[]> => {
    const { origin } = options.proxy();
    const kept = rpcOrigins.get(listing);
    if (kept && kept.proxy === origin && Date.now() - kept.at < 60_000) return kept.origins;
    const listed = await fetch(
      listing === 'bridge' ? `${origin}/api/bridge/chains?network=${BRIDGE_NETWORK}` : `${origin}/api/onramp/config`,
    );
    const body = (await listed.json().catch(() => undefined)) as { chains?: unknown } | unknown[] | undefined;
    const chains = Array.isArray(body) ? body : body?.chains;
    if (listed.status !== 200 || !Array.isArray(chains))
      throw new Error(`The proxy did not list the chains: ${listed.status}`);
    const origins = [...new Set((chains as Array<{ rpcUrl: string }>).map((chain) => new URL(chain.rpcUrl).origin))];
    rpcOrigins.set(listing, { at: Date.now(), proxy: origin, origins });
    return origins;
  };

  const bankHints = html`<label
      >Bank page
      <select id="mode">
        <option value="redirect">in this tab</option>
        <option value="popup">in a popup</option>
      </select></label
    >
    <p class="hint">
      On the bank page, pick a bank and press “Authorise payment”. “Sandbox bank that rejects”, or “Cancel”, shows a
      failed payment.
    </p>`;
  const HINTS = {
    checkout: bankHints,
    wallet: html`<p class="hint">
      Connect a wallet that holds the sandbox's test account <code>${SANDBOX_TEST_ADDRESS}</code> (its key is printed by
      <code>npm start</code>; the Kassa extension offers it as “Use a sandbox test account”; never for real money), pick
      the networks and an amount, review what the transaction does, and confirm in the wallet. The panel adds the local
      chains to the wallet when it does not know them.
    </p>`,
    buy: html`<p class="hint">
        Connect a wallet (any account: signing costs nothing), pick the coin, the network and how many tokens, and press
        “Buy”: the wallet signs that the address is yours, then you pay at the sandbox bank and watch the tokens arrive.
      </p>
      ${bankHints}`,
  };

  const page = (
    c: Context,
    title: string,
    body: unknown,
    extra?: PageSources,
    hints: keyof typeof HINTS = 'checkout',
  ) => {
    const proxy = browserProxy();
    c.header('Content-Security-Policy', contentSecurityPolicy(proxy, extra));
    c.header('Referrer-Policy', 'no-referrer');
    c.header('X-Content-Type-Options', 'nosniff');
    c.header('Cache-Control', PAGE_CACHE);
    return c.html(
      html`<!doctype html>
        <html lang="en">
          <head>
            <meta charset="utf-8" />
            <meta name="viewport" content="width=device-width, initial-scale=1" />
            <title>${title} · Kassa demo shop</title>
            <link rel="stylesheet" href="/shop.css" />
            <script type="module" src="${proxy}/kassa.js"></script>
            <script type="module" src="/shop.js"></script>
          </head>
          <body>
            <header>
              <a href="/" class="brand">Kassa demo shop</a>
              <nav>
                <a href="/">Order</a> <a href="/donate">Donate</a> <a href="/wallet">Wallet</a> <a href="/buy">Buy</a>
              </nav>
              <span class="note">Runs on the sandbox: no real bank, no real money.</span>
            </header>
            <main>
              <section class="content">${body}</section>
              <aside aria-label="Try it">
                <h2>Try it</h2>
                <label
                  >Language
                  <select id="locale">
                    ${LOCALES.map((locale) => html`<option>${locale}</option>`)}
                  </select></label
                >
                <label
                  >Theme
                  <select id="theme">
                    <option>auto</option>
                    <option>light</option>
                    <option>dark</option>
                  </select></label
                >
                ${HINTS[hints]}
                <h2>Events</h2>
                <ol id="events"></ol>
              </aside>
            </main>
          </body>
        </html>`,
    );
  };

  app.get('/', async (c) => {
    const checkout = await currentCheckout(c);
    return page(
      c,
      checkout.reference,
      html`<h1>Order ${checkout.reference}</h1>
        <p>One Kassa T-shirt, organic cotton, size M.</p>
        <kassa-checkout proxy="${browserProxy()}" checkout="${checkout.checkoutId}"></kassa-checkout>
        <p id="confirmation" role="status" data-confirmed="${events.confirmed(checkout.checkoutId) ? 'yes' : 'no'}">
          ${events.confirmed(checkout.checkoutId) ? CONFIRMED : ''}
        </p>
        <form method="post" action="/new-order">
          <button type="submit" class="secondary">Start a new order</button>
        </form>`,
      // 'self': the page asks the shop's own server whether it has confirmed the payment.
      { connect: ["'self'"], img: [] },
    );
  });

  // The proxy's signed events; the merchant key is not involved, the events secret is.
  app.post('/kassa/events', (c) => events.receive(c));

  /** Asked by the order page: has this server confirmed the order in the cookie? */
  app.get('/order/confirmation', (c) => {
    const kept = getCookie(c, COOKIE);
    const confirmed = kept ? events.confirmed(kept) : undefined;
    c.header('Cache-Control', PAGE_CACHE);
    return c.json({ confirmed: confirmed !== undefined, message: confirmed ? CONFIRMED : null });
  });

  app.post('/new-order', (c) => {
    setCookie(c, COOKIE, '', { httpOnly: true, sameSite: 'Lax', path: '/', maxAge: 0 });
    return c.redirect('/', 303);
  });

  // An amount the customer chooses, in the element's own field: the proxy allows it only within KASSA_OPEN_AMOUNT's bounds.
  app.get('/donate', (c) =>
    page(
      c,
      'Donate',
      html`<h1>Donate</h1>
        <kassa-checkout
          proxy="${browserProxy()}"
          currency="EUR"
          reference="DONATION"
          return-url="${new URL('/donate', c.req.url).href}"
        ></kassa-checkout>`,
    ),
  );

  // The wallet panel: stablecoins moved between the sandbox's chains, signed by the visitor's own wallet.
  app.get('/wallet', async (c) =>
    page(
      c,
      'Wallet',
      html`<h1>Move stablecoins</h1>
        <p>Send test stablecoins from one local chain to the other. Your wallet signs; no key ever leaves it.</p>
        <kassa-bridge proxy="${browserProxy()}" network="${BRIDGE_NETWORK}" help-url="/wallet/extension"></kassa-bridge>
        <p class="hint wallet-help">
          No wallet in this browser? <a href="/wallet/extension">Install the Kassa extension</a>.
        </p>`,
      // Wallet icons are data: images (EIP-6963).
      { connect: await chainRpcOrigins('bridge'), img: ['data:'] },
      'wallet',
    ),
  );

  // The on-ramp: test stablecoins bought by bank, minted to the visitor's own wallet on the chain they pick.
  app.get('/buy', async (c) =>
    page(
      c,
      'Buy stablecoins',
      html`<h1>Buy stablecoins</h1>
        <p>Pay by bank and receive test stablecoins in your own wallet, on the local chain you choose.</p>
        <kassa-onramp
          proxy="${browserProxy()}"
          return-url="${new URL('/buy', c.req.url).href}"
          help-url="/wallet/extension"
        ></kassa-onramp>
        <p class="hint wallet-help">
          No wallet in this browser? <a href="/wallet/extension">Install the Kassa extension</a>.
        </p>`,
      // The buyer's balance is read from the chain's RPC; wallet icons are data: images (EIP-6963).
      { connect: await chainRpcOrigins('onramp'), img: ['data:'] },
      'buy',
    ),
  );

  // How to install the Kassa extension as the demo's wallet (the panel's help-url).
  app.get('/wallet/extension', (c) =>
    page(
      c,
      'Install the Kassa extension',
      html`<h1>Install the Kassa extension</h1>
        <p>The Kassa extension is a wallet for the demo: it keeps one key in this browser and signs Kassa transfers.</p>
        <ol id="extension-steps">
          <li>
            <code>npm start</code> builds it and prints its folder: <code>dist/extension/</code> in the repository.
          </li>
          <li>Open <code>chrome://extensions</code> in Chromium or Chrome and switch on <em>Developer mode</em>.</li>
          <li>Press <em>Load unpacked</em> and pick the <code>dist/extension/</code> folder.</li>
          <li>
            Open Kassa from the toolbar, go to <em>Settings</em>, enter the proxy URL
            <code id="proxy-url">${options.proxy().origin}</code> and press <em>Save</em>.
          </li>
          <li>
            In its <em>Wallet</em> tab, choose <em>Use a sandbox test account</em> and set a password: Kassa keeps the
            sandbox's test account <code id="test-account">${SANDBOX_TEST_ADDRESS}</code>, which holds test stablecoins
            on both local chains (its key is anvil's public development key: for the sandbox only, never for real
            money). Or <em>Create</em> a key of your own.
          </li>
          <li>
            Come back to <a href="/wallet">the wallet page</a> or <a href="/buy">the on-ramp</a>: Kassa shows up among
            the wallets, no reload needed.
          </li>
        </ol>`,
      undefined,
      'wallet',
    ),
  );

  // Compressed once per version of the file; revalidated on each use (an edit shows at the next load).
  const files = new EncodedFiles();
  for (const [file, type] of [
    ['shop.css', 'text/css'],
    ['shop.js', 'text/javascript'],
  ] as const) {
    app.get(`/${file}`, async (c) => {
      const found = await files.get(fileURLToPath(new URL(file, PUBLIC)));
      if (!found) return c.notFound();
      c.header('X-Content-Type-Options', 'nosniff');
      return sendEncoded(c, found, { type: `${type}; charset=utf-8`, cacheControl: 'no-cache' });
    });
  }

  // No icon, and no 404 for the one browsers ask for.
  app.get('/favicon.ico', (c) => c.body(null, 204));

  app.onError((error, c) => {
    console.error(`demo shop: ${error.message}`);
    return c.text(`The shop could not reach its Kassa proxy: ${error.message}`, 502);
  });

  return listen(app.fetch, { port: options.port, alsoOn: options.alsoOn });
}
