/**
 * `npm run sandbox -- --port P`: the emulator on its own. Prints one JSON line with the base
 * addresses, ready credentials and the local chains (RPC URLs, token addresses), then runs until
 * interrupted; stopping it stops the chains.
 */
import { parseArgs } from 'node:util';
import { startSandbox } from './server.ts';

const HELP = `kassa-sandbox: the emulator of Kassa's upstream services (payment service and its bank, order
service, cross-chain transfers) and two local chains, on loopback. Prints one JSON line with its
addresses, credentials and chains, then runs until interrupted.

  --port P              the port (0, the default, picks a free one)
  --host ADDRESS        the address to listen on (127.0.0.1; 0.0.0.0 in a container)
  --public-origin URL   the origin browsers reach it at, when not the one it listens on
  --client-secret S     the ready key's client secret (a new random one by default)
  --orders-api-key K    the order service's API key (a new random one by default)
  --settlement-ms MS    how long the bank takes to execute an authorised payment (1000)
  --mint-ms MS          how long the issuer takes to mint and complete a submitted order (2000)
  --manual-orders       no issuer: orders stay New until the caller moves them (as before --mint-ms)
  --webhook-url URL     where the ready-made key's payment webhooks go (settable later)
  --allow-private-http  take a payment's redirectUrl of plain http to a private-network address
                        (10/8, 172.16/12, 192.168/16) as well: a phone on this network trying the
                        sandbox with --host on such an address (the real service takes https only)
  --help                this text`;

const { values } = parseArgs({
  options: {
    help: { type: 'boolean', short: 'h' },
    port: { type: 'string', default: '0' },
    host: { type: 'string' },
    'public-origin': { type: 'string' },
    'client-secret': { type: 'string' },
    'orders-api-key': { type: 'string' },
    'settlement-ms': { type: 'string' },
    'mint-ms': { type: 'string' },
    'manual-orders': { type: 'boolean' },
    'webhook-url': { type: 'string' },
    'allow-private-http': { type: 'boolean' },
  },
});

if (values.help) {
  console.log(HELP);
  process.exit(0);
}
const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`--port must be a whole number from 0 to 65535, not "${values.port}"`);
  process.exit(2);
}
const settlement = values['settlement-ms'] === undefined ? undefined : Number(values['settlement-ms']);
if (settlement !== undefined && !(Number.isInteger(settlement) && settlement >= 0)) {
  console.error(`--settlement-ms must be a whole number of milliseconds, not "${values['settlement-ms']}"`);
  process.exit(2);
}

const mint = values['mint-ms'] === undefined ? undefined : Number(values['mint-ms']);
if (mint !== undefined && !(Number.isInteger(mint) && mint >= 0)) {
  console.error(`--mint-ms must be a whole number of milliseconds, not "${values['mint-ms']}"`);
  process.exit(2);
}
if (mint !== undefined && values['manual-orders']) {
  console.error('--mint-ms and --manual-orders cannot be used together');
  process.exit(2);
}

const started = performance.now();
const sandbox = await startSandbox({
  port,
  host: values.host,
  publicOrigin: values['public-origin'],
  clientSecret: values['client-secret'],
  ordersApiKey: values['orders-api-key'],
  settlementDelayMs: settlement,
  mintDelayMs: values['manual-orders'] ? null : mint,
  webhookUrl: values['webhook-url'] ?? null,
  allowPrivateHttp: values['allow-private-http'] ?? false,
});
// JSON leaves out `stop`: what is printed is the sandbox's addresses.
console.log(JSON.stringify({ sandbox, startupMs: Math.round(performance.now() - started) }));

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void sandbox.stop().then(() => process.exit(0)));
}
