/**
 * `npm run proxy` (and `node dist/proxy/server.js`): the proxy, configured by the environment.
 * A bad setting stops it at once with a message that names the setting.
 */
import { ConfigError, loadConfig } from './config.ts';
import { startProxy } from './server.ts';

let config;
try {
  config = loadConfig();
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(`Kassa proxy: bad configuration: ${error.message}`);
  process.exit(2);
}

const proxy = await startProxy(config);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void proxy.stop().then(() => process.exit(0)));
}
