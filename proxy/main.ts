/**
 * `npm run proxy` (and `node dist/proxy/server.js`): the proxy, configured by the environment.
 * A bad setting stops it at once with a message that names the setting.
 */
import { COMMANDS_HELP, isCommand, runCommand } from './commands.ts';
import { loadConfig } from './config.ts';
import { ConfigError } from './config-readers.ts';
import { startProxy } from './server.ts';
import { StoreOpenError } from './state/store-open-error.ts';

const HELP = `kassa-proxy: the Kassa proxy (HTTP), configured by environment variables or a JSON file of the
same names in KASSA_CONFIG_FILE. A bad setting stops it at once, naming the setting.

Required:
  KASSA_PAY_BASE_URL, KASSA_PAY_CLIENT_SECRET        the payment service and its client secret
  KASSA_ORDERS_BASE_URL, KASSA_ORDERS_API_KEY        the stablecoin order service and its API key
  KASSA_REFORGE_BASE_URL                             the cross-chain transfer service
  KASSA_MERCHANT_KEY                                 the bearer token of the merchant's server
  KASSA_RETURN_URLS, KASSA_FLOW_HOSTS                where the bank sends customers back; payment page hosts
  KASSA_WEBHOOK_SECRET                               the path token of /hooks/payments/<token>
Often set:
  PORT (8787), HOST (127.0.0.1), KASSA_DB (./data/kassa.db), KASSA_ALLOWED_ORIGINS,
  KASSA_DATABASE_URL (PostgreSQL, a fleet) or KASSA_REDIS_URL (Redis, a fleet),
  KASSA_EVENTS_URL and KASSA_EVENTS_SECRET (signed events), KASSA_LOG_LEVEL
Every setting is in the table of the README's section "The proxy". Probes: GET /livez, GET /readyz. The API:
GET /openapi.json, and with KASSA_API_DOCS=1 its reference page at /docs. Operators are people with
roles (docs/operators.md): the first admin comes from the setup link printed at first start, or:

${COMMANDS_HELP}`;

if (process.argv.includes('--help') || process.argv.includes('-h')) {
  console.log(HELP);
  process.exit(0);
}

const argv = process.argv.slice(2);
if (isCommand(argv)) {
  const code = await runCommand(argv, process.env, {
    out: (line) => console.log(line),
    err: (line) => console.error(line),
  });
  process.exit(code);
}

let config;
try {
  config = loadConfig();
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(`Kassa proxy: bad configuration: ${error.message}`);
  process.exit(2);
}

let proxy;
try {
  proxy = await startProxy(config);
} catch (error) {
  // A store it cannot open is the operator's to fix, not a bug: one line that names it, no stack.
  if (!(error instanceof StoreOpenError)) throw error;
  console.error(`Kassa proxy: cannot start: ${error.message}`);
  process.exit(1);
}
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void proxy.stop().then(() => process.exit(0)));
}
