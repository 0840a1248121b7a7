import { randomBytes } from 'node:crypto';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { listen } from '../server-kit/listen.ts';
import { GENERIC_PROCESSING_ERROR } from '../schemas/pay.ts';
import { DEFAULT_CHAINS, LocalChains, type ChainConfig, type SandboxChain } from './chains/local-chains.ts';
import { explorerPages } from './chains/explorer-page.ts';
import { Relayer } from './chains/relayer.ts';
import { relayerControl } from './chains/relayer-routes.ts';
import { smartWalletControl } from './chains/smart-wallet-routes.ts';
import { SmartWallets } from './chains/smart-wallets.ts';
import { SandboxClock } from './clock.ts';
import { controlApi } from './control/routes.ts';
import { FaultBook, faultInjection } from './faults.ts';
import { Metrics } from './metrics.ts';
import { Issuer } from './orders/issuer.ts';
import { issuerControl } from './orders/issuer-routes.ts';
import { OrderBook } from './orders/order-book.ts';
import { ordersApi } from './orders/routes.ts';
import { AccessTokens, TOKEN_LIFETIME_SECONDS } from './pay/access-tokens.ts';
import { AccountState } from './pay/account-state.ts';
import { payApi } from './pay/api-routes.ts';
import { flowPage } from './pay/flow-page.ts';
import { KeyRegistry } from './pay/key-registry.ts';
import { PaymentLedger } from './pay/payment-ledger.ts';
import { WebhookSender, type WebhookSenderOptions } from './pay/webhook-sender.ts';
import { ReforgeExecutor } from './reforge/execute.ts';
import { reforgeApi } from './reforge/routes.ts';

export type { ChainConfig, SandboxChain } from './chains/local-chains.ts';

export interface SandboxOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  /** The address to listen on: loopback by default; `0.0.0.0` in a container that others reach. */
  host?: string;
  /**
   * The origin browsers reach it at, in the addresses it hands out (bank pages among them), when that
   * is not the one it listens on (a published container port); by default `http://<host>:<port>`.
   */
  publicOrigin?: string;
  /**
   * The ready key's client secret and the order service's API key, chosen beforehand so that proxies
   * can be configured before it starts (compose.yaml); new random ones by default.
   */
  clientSecret?: string;
  ordersApiKey?: string;
  /** How long the bank takes to execute an authorised payment; 1 s by default. */
  settlementDelayMs?: number;
  tokenLifetimeSeconds?: number;
  webhooks?: WebhookSenderOptions;
  /** Webhook URL of the ready-made sandbox key; it can be set later through the control API. */
  webhookUrl?: string | null;
  /** The local EVM chains, one anvil each; two test chains (31337, 31338) by default. */
  chains?: ChainConfig[];
  /** Raises the payment endpoints' limit of 100 per minute (benchmarks of a merchant with a larger quota). */
  paymentsPerMinute?: number;
  /**
   * How long the issuer takes to process an order the merchant submits: `Processing`, minted, then
   * `Completed` (2 s by default); null leaves every order to the caller, as an order service with no
   * issuer behind it would.
   */
  mintDelayMs?: number | null;
  /**
   * Takes a payment's `redirectUrl` of plain http to a private-network address (RFC 1918) as well as
   * https and loopback, so that a phone on this network can come back from its bank page
   * (`npm start -- --lan`). The real service takes https alone; off by default.
   */
  allowPrivateHttp?: boolean;
}

/** What the issuer takes by default: long enough for a customer to see "minting". */
export const DEFAULT_MINT_DELAY_MS = 2_000;

export interface Sandbox {
  origin: string;
  /** Base addresses, as a client configures them. */
  pay: string;
  orders: string;
  /** The cross-chain transfer service, `${origin}/xchain/v1/reforge`. */
  reforge: string;
  control: string;
  /** The chains, their RPC URLs and token addresses. */
  chains: SandboxChain[];
  /** A ready sandbox key and its secret, and an order-service API key. */
  keyId: string;
  clientSecret: string;
  ordersApiKey: string;
  stop(): Promise<void>;
}

const MAX_BODY_BYTES = 1024 * 1024;

/** Starts the emulator of the upstream services on loopback. */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const chains = await LocalChains.start(options.chains ?? DEFAULT_CHAINS);
  const clock = new SandboxClock();
  const metrics = new Metrics();
  const faults = new FaultBook();
  const keys = new KeyRegistry(clock);
  const account = new AccountState(clock);
  const tokens = new AccessTokens(clock, options.tokenLifetimeSeconds ?? TOKEN_LIFETIME_SECONDS);
  const webhooks = new WebhookSender(clock, options.webhooks);
  const relayer = new Relayer(chains);
  const issuer = new Issuer({
    delayMs: options.mintDelayMs === undefined ? DEFAULT_MINT_DELAY_MS : options.mintDelayMs,
    mint: (order) => relayer.mintForOrder(order),
  });
  const orderBook = new OrderBook(clock, {
    chainIds: chains.chains.map((chain) => chain.chainId),
    onCreated: issuer.onCreated,
    onCompleted: (order) => void relayer.mintForOrder(order),
  });
  issuer.attach(orderBook);
  const orderApiKeys = new Set<string>();
  // The flow base needs the port, known only once listening; the ledger reads it lazily.
  let origin = '';
  const ledger = new PaymentLedger(clock, {
    get flowBase() {
      return `${origin}/pay/flow`;
    },
    settlementDelayMs: options.settlementDelayMs ?? 1_000,
    onStatusChange: (record, keyId) => {
      const url = keys.get(keyId)?.webhookUrl;
      if (!url) return;
      webhooks.send(url, {
        event: 'payment.status_updated',
        transactionId: record.transactionId,
        networkPaymentId: record.networkPaymentId,
        status: record.status,
        amount: record.amount,
        currencyCode: record.currencyCode,
        timestamp: record.updatedTimestamp,
      });
    },
  });

  const app = new Hono();
  app.use(
    '*',
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: (c) => c.json({ error: `Request body is larger than ${MAX_BODY_BYTES} bytes` }, 413),
    }),
  );
  app.use(
    '/pay/v1/*',
    faultInjection({
      service: 'pay',
      basePath: '/pay',
      book: faults,
      errorBody: (kind) => ({ error: kind === '429' ? 'Rate limit exceeded' : GENERIC_PROCESSING_ERROR }),
    }),
  );
  app.use(
    '/xchain/v1/reforge/*',
    faultInjection({
      service: 'reforge',
      basePath: '/xchain/v1/reforge',
      book: faults,
      errorBody: (kind) => ({ error: kind === '429' ? 'Too many requests' : 'Internal server error' }),
    }),
  );
  app.use(
    '/stablecoin/v1/*',
    faultInjection({
      service: 'orders',
      basePath: '/stablecoin/v1',
      book: faults,
      errorBody: (kind) => ({ message: kind === '429' ? 'Too Many Requests' : 'Internal server error' }),
    }),
  );
  app.route(
    '/pay',
    payApi({
      clock,
      keys,
      account,
      tokens,
      ledger,
      metrics,
      paymentsPerMinute: options.paymentsPerMinute,
      allowPrivateHttp: options.allowPrivateHttp,
    }),
  );
  app.route(
    '/pay/flow',
    flowPage(ledger, (keyId) => keys.get(keyId)?.name),
  );
  app.route('/stablecoin/v1', ordersApi({ book: orderBook, apiKeys: orderApiKeys, metrics }));
  app.route(
    '/xchain/v1/reforge',
    reforgeApi({ chains, executor: new ReforgeExecutor(chains), metrics, explorerBase: () => `${origin}/explorer` }),
  );
  app.route('/explorer', explorerPages(chains));
  app.route('/_sandbox/relayer', relayerControl(relayer, chains));
  app.route('/_sandbox/orders', issuerControl(issuer));
  app.route('/_sandbox/chains', smartWalletControl(new SmartWallets(), chains));
  app.route('/_sandbox', controlApi({ clock, keys, account, ledger, webhooks, faults, metrics, orderApiKeys }));
  app.notFound((c) => c.json({ error: `Not found: ${c.req.method} ${c.req.path}` }, 404));
  app.onError((error, c) => {
    console.error(
      JSON.stringify({ level: 'error', msg: 'sandbox handler failed', path: c.req.path, error: String(error) }),
    );
    return c.json({ error: 'Internal error in the sandbox' }, 500);
  });

  const { key, clientSecret } = keys.create({
    environment: 'sandbox',
    webhookUrl: options.webhookUrl ?? null,
    name: 'Default sandbox key',
    expiresAt: null,
    clientSecret: options.clientSecret,
  });
  const ordersApiKey = options.ordersApiKey ?? `ok_${randomBytes(20).toString('base64url')}`;
  orderApiKeys.add(ordersApiKey);

  let server;
  try {
    server = await listen(app.fetch, { port: options.port ?? 0, ...(options.host ? { hostname: options.host } : {}) });
  } catch (error) {
    await chains.stop();
    throw error;
  }
  origin = options.publicOrigin?.replace(/\/$/, '') ?? server.origin;
  relayer.start();
  return {
    origin,
    pay: `${origin}/pay`,
    orders: `${origin}/stablecoin/v1/`,
    reforge: `${origin}/xchain/v1/reforge`,
    control: `${origin}/_sandbox`,
    chains: chains.describe(),
    keyId: key.keyId,
    clientSecret,
    ordersApiKey,
    async stop() {
      webhooks.stop();
      ledger.stop();
      await server.close();
      // The issuer's mints go through the relayer: stopped first, so it sends no new ones.
      await issuer.stop();
      await relayer.stop();
      await chains.stop();
    },
  };
}
