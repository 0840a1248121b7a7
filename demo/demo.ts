/**
 * The whole demo in one process: the emulator of the upstream services, the proxy configured
 * against it the way a merchant configures theirs, and the demo shop on its own origin.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type ProxyConfig } from '../proxy/config.ts';
import { startProxy } from '../proxy/server.ts';
import { startSandbox } from '../sandbox/server.ts';
import { originOf } from '../server-kit/listen.ts';
import { startShop } from './shop-server.ts';

export interface DemoOptions {
  shopPort: number;
  proxyPort: number;
  sandboxPort: number;
  /** How long the sandbox bank takes to settle an authorised payment. */
  settlementMs?: number;
  /** Where the proxy's log lines go (they never hold a secret). */
  log?: (line: string) => void;
  logLevel?: ProxyConfig['logLevel'];
  /**
   * An address of this computer on its network (`npm start -- --lan`, lan-address.ts): the shop and
   * the proxy listen there as well as on loopback, the sandbox there alone, and every address a
   * browser is given (the proxy's in the pages, its return address, the bank pages) is there, so that
   * a phone on the network can follow the QR code of "Pay with your phone". What the servers send each
   * other (webhooks, the shop's events, the merchant's calls) stays on loopback.
   */
  lan?: string;
}

const secret = (prefix: string) => `${prefix}_${randomBytes(24).toString('base64url')}`;
/** A Standard Webhooks secret, as KASSA_EVENTS_SECRET takes it. */
export const eventsSecret = () => `whsec_${randomBytes(32).toString('base64')}`;

/**
 * The port itself, or for 0 one free now: the proxy's public address names its port before it listens.
 * Free on loopback, where the proxy listens first; the LAN address's is checked as the proxy binds it.
 */
async function portFirst(port: number): Promise<number> {
  if (port !== 0) return port;
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port: free } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return free;
}

export async function startDemo(options: DemoOptions) {
  const { lan } = options;
  const sandbox = await startSandbox({
    port: options.sandboxPort,
    settlementDelayMs: options.settlementMs ?? 1_000,
    // On the network alone: its callers, the proxy and this process, reach it there too.
    ...(lan ? { host: lan, allowPrivateHttp: true } : {}),
  });
  const dir = mkdtempSync(join(tmpdir(), 'kassa-demo-'));
  let proxy: Awaited<ReturnType<typeof startProxy>> | undefined;
  let shop: Awaited<ReturnType<typeof startShop>> | undefined;
  // Shared by the proxy, which signs its events with it, and the shop's server, which verifies them.
  const eventsKey = eventsSecret();
  try {
    // The shop listens first: with port 0 (tests, the benchmark) its origin, where the proxy sends
    // its events, is known only then.
    shop = await startShop({
      port: options.shopPort,
      alsoOn: lan ? [lan] : [],
      proxy: () => ({ origin: proxy!.origin, browserOrigin: proxyOnLan, merchantKey: config.merchantKey }),
      eventsSecret: eventsKey,
    });
    // The shop's page on the network first: the bank's default way back.
    const shopOrigins = [...new Set([...(lan ? [originOf(lan, shop.port)] : []), shop.origin])];
    const proxyPort = lan ? await portFirst(options.proxyPort) : options.proxyPort;
    const proxyOnLan = lan ? originOf(lan, proxyPort) : undefined;
    const config = loadConfig({
      PORT: String(proxyPort),
      KASSA_PAY_BASE_URL: sandbox.pay,
      KASSA_PAY_CLIENT_SECRET: sandbox.clientSecret,
      KASSA_ORDERS_BASE_URL: sandbox.orders,
      KASSA_ORDERS_API_KEY: sandbox.ordersApiKey,
      KASSA_REFORGE_BASE_URL: sandbox.reforge,
      KASSA_MERCHANT_KEY: secret('mk'),
      KASSA_WEBHOOK_SECRET: randomBytes(32).toString('base64url'),
      KASSA_ALLOWED_ORIGINS: shopOrigins.join(','),
      KASSA_RETURN_URLS: shopOrigins.flatMap((origin) => [`${origin}/`, `${origin}/donate`, `${origin}/buy`]).join(','),
      KASSA_FLOW_HOSTS: new URL(sandbox.origin).host,
      // Plain http on the network, against this sandbox only (docs/proxy.md, "Plain http on a private network").
      ...(proxyOnLan ? { KASSA_PUBLIC_URL: proxyOnLan, KASSA_ALLOW_PRIVATE_HTTP: '1' } : {}),
      KASSA_OPEN_AMOUNT: '1..500 EUR',
      // Counter mode at /operator/counter: a till asks for 0.50 to 1,000 EUR a customer.
      KASSA_COUNTER: '0.50..1000 EUR',
      // The on-ramp of /buy: EUR buys eEUR and GBP eGBR, 1 to 500 tokens a purchase, 1,000 a wallet a day.
      KASSA_ONRAMP_COINS: 'EUR:eEUR,GBP:eGBR',
      KASSA_ONRAMP_LIMITS: '1..500',
      KASSA_ONRAMP_WALLET_LIMIT: '1000',
      KASSA_EVENTS_URL: `${shop.origin}/kassa/events`,
      KASSA_EVENTS_SECRET: eventsKey,
      KASSA_DB: join(dir, 'kassa.db'),
      KASSA_LOG_LEVEL: options.logLevel ?? 'warn',
      KASSA_API_DOCS: '1',
    });
    // A new shop has no admin: the proxy's one-time setup link for the first one, which start.ts prints
    // with the rest (a credential: never through the log).
    let setupLink: string | undefined;
    proxy = await startProxy(config, {
      logSink: options.log,
      setupLink: (text) => (setupLink = /\S+\/operator\/setup#\S+/.exec(text)?.[0]),
      alsoOn: lan ? [lan] : [],
    });
    // The payment service tells the proxy about status changes at this (secret) address.
    const hook = await fetch(`${sandbox.control}/keys/${sandbox.keyId}`, {
      method: 'PATCH',
      headers: { 'Content-Type': 'application/json' },
      // The shop's name is the key's: the sandbox bank's page shows it as the payee.
      body: JSON.stringify({
        webhookUrl: `${proxy.origin}/hooks/payments/${config.webhookSecret}`,
        name: 'Kassa demo shop',
      }),
    });
    if (!hook.ok) throw new Error(`could not register the proxy's webhook with the sandbox: ${hook.status}`);
    return {
      sandbox,
      proxy,
      shop,
      /** The first admin's one-time setup link (an hour): its passkey made there, the operator views follow. */
      setupLink,
      /** Where browsers are sent with `lan`: the shop's and the proxy's origins on the network. */
      lan: proxyOnLan ? { shop: shopOrigins[0]!, proxy: proxyOnLan } : undefined,
      async stop() {
        await shop!.close();
        await proxy!.stop();
        await sandbox.stop();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await shop?.close();
    await proxy?.stop();
    await sandbox.stop();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}
