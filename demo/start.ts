/**
 * `npm start`: the demo. Builds the widget if needed, starts the sandbox, the proxy and the demo
 * shop on fixed ports (3000, 8787, 4000 unless told otherwise), and prints where to go. On loopback
 * only, unless `--lan [address]` serves it to phones on this computer's network as well.
 *
 *   npm start -- --shop-port 3001 --proxy-port 8788 --sandbox-port 4001 --settlement-ms 3000 --verbose
 *   npm start -- --lan              (or --lan 192.168.1.20)
 */
import { createServer } from 'node:net';
import { parseArgs } from 'node:util';
import { SANDBOX_TEST_ADDRESS, SANDBOX_TEST_KEY } from '../lib/sandbox-account.ts';
import { startDemo } from './demo.ts';
import { chooseLanAddress, LanAddressError } from './lan-address.ts';
import { ensureExtensionBuilt, ensureWidgetBuilt, EXTENSION_DIR } from './widget-build.ts';

const { values, tokens } = parseArgs({
  options: {
    'shop-port': { type: 'string', default: '3000' },
    'proxy-port': { type: 'string', default: '8787' },
    'sandbox-port': { type: 'string', default: '4000' },
    'settlement-ms': { type: 'string', default: '1000' },
    verbose: { type: 'boolean', default: false },
    // `--lan` alone or followed by an address: a value of its own, taken from the tokens below.
    lan: { type: 'boolean', default: false },
  },
  allowPositionals: true,
  tokens: true,
});

function fail(message: string): never {
  console.error(`Kassa demo: ${message}`);
  process.exit(1);
}

function number(option: keyof typeof values, max: number): number {
  const value = Number(values[option]);
  if (!Number.isInteger(value) || value < 0 || value > max)
    fail(`--${option} must be a whole number from 0 to ${max}, not "${values[option]}"`);
  return value;
}

/** `--lan`'s address when one follows it; every other word is a mistake. */
function requestedLan(): string | undefined {
  let requested: string | undefined;
  tokens.forEach((token, index) => {
    if (token.kind !== 'positional') return;
    const before = tokens[index - 1];
    if (before?.kind === 'option' && before.name === 'lan' && requested === undefined) requested = token.value;
    else
      fail(
        `unexpected "${token.value}": options are --shop-port, --proxy-port, --sandbox-port, --settlement-ms, --verbose, --lan [address]`,
      );
  });
  return requested;
}

/** The address a phone reaches, with `--lan`: said before anything starts, with the others to choose from. */
function lanAddress(): string | undefined {
  const requested = requestedLan();
  if (!values.lan) return undefined;
  try {
    const { chosen, others } = chooseLanAddress(requested);
    console.log(
      (chosen.address === '127.0.0.1'
        ? '--lan 127.0.0.1: wired as for a network, on this computer alone (no phone reaches it).'
        : `--lan: serving the demo on ${chosen.address} (${chosen.interface}) as well as on 127.0.0.1.`) +
        (others.length
          ? ` Also on this computer: ${others.map((other) => `${other.address} (${other.interface})`).join(', ')}; choose with --lan <address>.`
          : ''),
    );
    return chosen.address;
  } catch (error) {
    if (error instanceof LanAddressError) fail(error.message);
    throw error;
  }
}

/** Fails at once, naming the port and the option, rather than half-starting. */
async function ensureFree(port: number, what: string, option: string, host: string): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((resolve) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) =>
      fail(
        error.code === 'EADDRINUSE'
          ? `port ${port} (the ${what}) is already in use${host === '127.0.0.1' ? '' : ` on ${host}`}. Stop what uses it, or pick another: npm start -- --${option} <port>`
          : `cannot listen on ${host}, port ${port} (the ${what}): ${error.message}`,
      ),
    );
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve()));
  });
}

const lan = lanAddress();
const ports = {
  shop: number('shop-port', 65535),
  proxy: number('proxy-port', 65535),
  sandbox: number('sandbox-port', 65535),
};
// The shop and the proxy listen on loopback, and with --lan on its address too; the sandbox on one of them.
for (const host of new Set(['127.0.0.1', ...(lan ? [lan] : [])])) {
  await ensureFree(ports.shop, 'demo shop', 'shop-port', host);
  await ensureFree(ports.proxy, 'proxy', 'proxy-port', host);
}
await ensureFree(ports.sandbox, 'sandbox', 'sandbox-port', lan ?? '127.0.0.1');

try {
  if (ensureWidgetBuilt()) console.log('Built the widget (dist/widget/kassa.js).');
  if (ensureExtensionBuilt()) console.log(`Built the Kassa extension (${EXTENSION_DIR}).`);
} catch (error) {
  fail((error as Error).message);
}

const demo = await startDemo({
  shopPort: ports.shop,
  proxyPort: ports.proxy,
  sandboxPort: ports.sandbox,
  settlementMs: number('settlement-ms', 600_000),
  logLevel: values.verbose ? 'info' : 'warn',
  log: (line) => console.log(`proxy: ${line}`),
  ...(lan ? { lan } : {}),
}).catch((error: Error) => fail(error.message));

/** Where browsers go: on the network with --lan, on this computer otherwise. */
const shop = demo.lan?.shop ?? demo.shop.origin;
const proxy = demo.lan?.proxy ?? demo.proxy.origin;

/** Said only where the network's address differs from this computer's (not with --lan 127.0.0.1). */
const also = (origin: string, onNetwork: string) => (origin === onNetwork ? '' : ` (on this computer also ${origin})`);
const onLan = demo.lan
  ? {
      running: `Kassa demo is running, on this computer and on your network at ${lan} (--lan).`,
      phone: `
  Phone     on the shop's page, “Pay with your phone” shows a QR code that a phone on this network opens${also(`${demo.shop.origin}/`, `${shop}/`)}`,
      proxy: also(demo.proxy.origin, proxy),
      chains: ' (on this computer only)',
      warning: `
WARNING (--lan): anyone on your network can open this demo's shop, proxy and sandbox (its control API too), over
plain http. The proxy runs with KASSA_ALLOW_PRIVATE_HTTP=1: it sends customers over plain http to addresses of
this network, which is for the sandbox only, never for real money. Use it on a network you trust.
`,
    }
  : { running: 'Kassa demo is running.', phone: '', proxy: '', chains: '', warning: '' };

console.log(`
${onLan.running}

  Shop      ${shop}/        open this, press “Pay by bank”, then authorise on the bank page${onLan.phone}
  Donate    ${shop}/donate  an amount the customer chooses (1 to 500 EUR)
  Wallet    ${shop}/wallet  move test stablecoins between the local chains, signed by your own wallet
  Buy       ${shop}/buy     buy test stablecoins by bank, minted to your own wallet on the chain you pick
  Extension ${EXTENSION_DIR}
            the Kassa wallet: chrome://extensions → Developer mode → Load unpacked → this folder,
            then in its Settings the proxy URL ${demo.proxy.origin} (steps: ${shop}/wallet/extension)
  Account   ${SANDBOX_TEST_ADDRESS}  a test account holding test stablecoins on both chains
            key ${SANDBOX_TEST_KEY}
            SANDBOX ONLY: anvil's public development key, never for real money. The extension's
            Wallet offers it as "Use a sandbox test account"; any other wallet can import the key.
  Operator  ${demo.setupLink ?? 'the shop has an admin already'}
            become the demo's first admin (once, within an hour): make your passkey there, then sign
            the extension in (Settings → Sign in) and approve its code on that page
  Proxy     ${proxy}         serves kassa.js, the payment API and the bridge routes${onLan.proxy}
  API       ${proxy}/docs    the proxy's API reference (the OpenAPI document: /openapi.json)
  Sandbox   ${demo.sandbox.origin}         the emulated bank, payment, order and cross-chain services
  Chains    ${demo.sandbox.chains.map((chain) => `${chain.name} (${chain.chainId}) ${chain.rpcUrl}`).join(', ')}${onLan.chains}

Everything runs locally on the sandbox; the proxy's keys are made up for this run. Ctrl+C stops it.
${onLan.warning}`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void demo.stop().then(() => process.exit(0)));
}
