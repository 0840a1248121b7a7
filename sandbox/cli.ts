/**
 * `npm run sandbox -- --port P`: the emulator on its own. Prints one JSON line with the base
 * addresses, ready credentials and the local chains (RPC URLs, token addresses), then runs until
 * interrupted; stopping it stops the chains.
 */
import { parseArgs } from 'node:util';
import { startSandbox } from './server.ts';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    'settlement-ms': { type: 'string' },
    'webhook-url': { type: 'string' },
  },
});

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

const started = performance.now();
const sandbox = await startSandbox({ port, settlementDelayMs: settlement, webhookUrl: values['webhook-url'] ?? null });
// JSON leaves out `stop`: what is printed is the sandbox's addresses.
console.log(JSON.stringify({ sandbox, startupMs: Math.round(performance.now() - started) }));

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void sandbox.stop().then(() => process.exit(0)));
}
