/**
 * `npm start`: the demo. Builds the widget if needed, starts the sandbox, the proxy and the demo
 * shop on fixed ports (3000, 8787, 4000 unless told otherwise), and prints where to go.
 *
 *   npm start -- --shop-port 3001 --proxy-port 8788 --sandbox-port 4001 --settlement-ms 3000 --verbose
 */
import { createServer } from 'node:net';
import { parseArgs } from 'node:util';
import { SANDBOX_TEST_ADDRESS, SANDBOX_TEST_KEY } from '../lib/sandbox-account.ts';
import { startDemo } from './demo.ts';
import { ensureExtensionBuilt, ensureWidgetBuilt, EXTENSION_DIR } from './widget-build.ts';

const { values } = parseArgs({
  options: {
    'shop-port': { type: 'string', default: '3000' },
    'proxy-port': { type: 'string', default: '8787' },
    'sandbox-port': { type: 'string', default: '4000' },
    'settlement-ms': { type: 'string', default: '1000' },
    verbose: { type: 'boolean', default: false },
  },
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

/** Fails at once, naming the port and the option, rather than half-starting. */
async function ensureFree(port: number, what: string, option: string): Promise<void> {
  if (port === 0) return;
  await new Promise<void>((resolve) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) =>
      fail(
        error.code === 'EADDRINUSE'
          ? `port ${port} (the ${what}) is already in use. Stop what uses it, or pick another: npm start -- --${option} <port>`
          : `cannot listen on port ${port} (the ${what}): ${error.message}`,
      ),
    );
    probe.listen({ port, host: '127.0.0.1', exclusive: true }, () => probe.close(() => resolve()));
  });
}

const ports = {
  shop: number('shop-port', 65535),
  proxy: number('proxy-port', 65535),
  sandbox: number('sandbox-port', 65535),
};
await ensureFree(ports.shop, 'demo shop', 'shop-port');
await ensureFree(ports.proxy, 'proxy', 'proxy-port');
await ensureFree(ports.sandbox, 'sandbox', 'sandbox-port');

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
  // The Kassa extension's operator views need the token: `KASSA_OPERATOR_TOKEN=… npm start` chooses it.
  operatorToken: process.env.KASSA_OPERATOR_TOKEN || undefined,
  log: (line) => console.log(`proxy: ${line}`),
}).catch((error: Error) => fail(error.message));

console.log(`
Kassa demo is running.

  Shop      ${demo.shop.origin}/        open this, press “Pay by bank”, then authorise on the bank page
  Donate    ${demo.shop.origin}/donate  an amount the customer chooses (1 to 500 EUR)
  Wallet    ${demo.shop.origin}/wallet  move test stablecoins between the local chains, signed by your own wallet
  Buy       ${demo.shop.origin}/buy     buy test stablecoins by bank, minted to your own wallet on the chain you pick
  Extension ${EXTENSION_DIR}
            the Kassa wallet: chrome://extensions → Developer mode → Load unpacked → this folder,
            then in its Settings the proxy URL ${demo.proxy.origin} (steps: ${demo.shop.origin}/wallet/extension)
  Account   ${SANDBOX_TEST_ADDRESS}  a test account holding test stablecoins on both chains
            key ${SANDBOX_TEST_KEY}
            SANDBOX ONLY: anvil's public development key, never for real money. The extension's
            Wallet offers it as "Use a sandbox test account"; any other wallet can import the key.
  Proxy     ${demo.proxy.origin}         serves kassa.js, the payment API and the bridge routes
  API       ${demo.proxy.origin}/docs    the proxy's API reference (the OpenAPI document: /openapi.json)
  Sandbox   ${demo.sandbox.origin}         the emulated bank, payment, order and cross-chain services
  Chains    ${demo.sandbox.chains.map((chain) => `${chain.name} (${chain.chainId}) ${chain.rpcUrl}`).join(', ')}

Everything runs locally on the sandbox; the proxy's keys are made up for this run. Ctrl+C stops it.
`);

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void demo.stop().then(() => process.exit(0)));
}
