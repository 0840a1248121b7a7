import { listen } from '../server-kit/listen.ts';
import { createApp } from './http/app.ts';
import { openBackend } from './state/open-backend.ts';
import { secretsOf, type ProxyConfig } from './config.ts';
import { createLogger, type Logger } from './logger.ts';
import { createServices, type ProxyServices, type ServiceOverrides } from './services.ts';

export interface RunningProxy {
  origin: string;
  port: number;
  services: ProxyServices;
  /** Stops accepting, ends streams, waits for the follower, closes the store. */
  stop(): Promise<void>;
}

export interface StartProxyOptions extends ServiceOverrides {
  /** Where log lines go (standard output by default). */
  logSink?: (line: string) => void;
  logger?: Logger;
  /**
   * Where the first admin's one-time setup link goes when the store has no admin: standard error by
   * default, never the JSON log, since the link is a credential.
   */
  setupLink?: (line: string) => void;
  /** More addresses to listen on, on the same port: the demo's LAN address (`npm start -- --lan`). */
  alsoOn?: readonly string[];
}

/** Starts the proxy on `config.host:config.port` and resumes following pending payments. */
export async function startProxy(config: ProxyConfig, options: StartProxyOptions = {}): Promise<RunningProxy> {
  const logger =
    options.logger ?? createLogger({ level: config.logLevel, sink: options.logSink, secrets: secretsOf(config) });
  const backend = await openBackend(config, logger, options);
  const services = createServices(config, logger, { ...backend, ...options });
  const { app, preempt } = createApp(services);
  const server = await listen(app.fetch, { port: config.port, hostname: config.host, alsoOn: options.alsoOn, preempt });
  services.follower.start();
  services.destinations.start();
  services.outboxSweeper.start();
  services.onramp?.worker.start();
  logger.info('proxy listening', {
    origin: server.origin,
    ...(options.alsoOn?.length ? { alsoOn: options.alsoOn } : {}),
  });
  if (config.allowPrivateHttp)
    logger.warn(
      'KASSA_ALLOW_PRIVATE_HTTP is on: customers may be sent over plain http to private-network addresses, where anyone on that network can read and change what they see. For trying the sandbox with a phone only; never with a live payment service.',
    );
  if (config.operatorToken)
    logger.warn(
      'KASSA_OPERATOR_TOKEN is set but opens nothing any more: operators sign in as people (docs/operators.md); unset it',
      { setting: 'KASSA_OPERATOR_TOKEN' },
    );
  await printSetupLink(services, config.publicUrl ?? server.origin, options.setupLink ?? writeToStderr, logger);
  return {
    origin: server.origin,
    port: server.port,
    services,
    async stop() {
      services.watch.stop();
      services.refresher.stop();
      await server.close();
      await services.follower.stop();
      services.outboxSweeper.stop();
      await services.destinations.stop();
      await services.onramp?.worker.stop();
      await services.coordination.close();
      // A coordination given in the options replaces a fleet backend's, whose connections still close here.
      if (backend.coordination !== services.coordination) await backend.coordination.close();
      await services.store.close();
    },
  };
}

const writeToStderr = (line: string) => void process.stderr.write(`${line}\n`);

/** While the shop has no admin, a one-time link (an hour) for its first one; the log says only where it went. */
async function printSetupLink(
  services: ProxyServices,
  origin: string,
  print: (line: string) => void,
  logger: Logger,
): Promise<void> {
  const setup = await services.operators.accounts.setupToken().catch((error: unknown) => {
    logger.warn('could not tell whether the shop has an admin yet', { error });
    return undefined;
  });
  if (!setup) return;
  print(
    `Kassa has no admin yet. Open this link within an hour to become its first admin (or run kassa-proxy operators add --role admin):\n  ${origin}/operator/setup#${setup.token}`,
  );
  logger.info('no admin yet: a one-time setup link was printed on standard error', {
    expiresAt: new Date(setup.expiresAt).toISOString(),
  });
}
