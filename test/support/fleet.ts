import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../proxy/config.ts';
import { LEVEL_RANK, type LogLevel } from '../../proxy/logger.ts';
import { spawn } from 'node:child_process';
import { startProxy, type RunningProxy, type StartProxyOptions } from '../../proxy/server.ts';
import { startSandbox, type Sandbox } from '../../sandbox/server.ts';
import { unwatchAnswers, watchAnswers } from './api-conformance.ts';
import { http } from './http.ts';
import { startPostgres, type PostgresServer } from './postgres-server.ts';
import { startRedis, type RedisServer } from './redis-server.ts';
import { addOperator, addOperatorByCommand, type TestOperator } from './operators.ts';
import { patiently } from './patience.ts';
import { proxyEnvFor, SHOP_ORIGIN } from './stack.ts';

export interface Instance {
  origin: string;
  stop(): Promise<void>;
  /** Process instances only: ends it with SIGKILL, as a crash would (no shutdown, nothing flushed). */
  crash?: () => Promise<void>;
  /** Process instances only: its process id (its memory is in /proc/<pid>/status). */
  pid?: number;
  /** Process instances only: whether the process still runs (it has not crashed). */
  running?: () => boolean;
  /** In-process instances only: their services, for tests that look inside. */
  services?: RunningProxy['services'];
}

/** A line of the proxy's log; undefined for anything else on its standard output. */
function logEntry(line: string): { level: LogLevel; msg: string; origin?: string } | undefined {
  try {
    return JSON.parse(line) as { level: LogLevel; msg: string; origin?: string };
  } catch {
    return undefined;
  }
}

/**
 * An instance as its own process (`node proxy/main.ts`), as in a real deployment. It listens on a port
 * of its own choosing (PORT=0) and is found by its "proxy listening" line: a port picked here and
 * handed over could be taken by another suite's server meanwhile (EADDRINUSE, and the wait for it
 * would last a whole patience). One that exits before it listens fails the test at once. It logs at
 * info at least, for that line; `lines` get what the level asked for.
 */
export async function spawnInstance(env: Record<string, string>, lines: string[]): Promise<Instance> {
  const wanted = (env.KASSA_LOG_LEVEL ?? 'info') as LogLevel;
  const level = LEVEL_RANK[wanted] > LEVEL_RANK.info ? 'info' : wanted;
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', join(import.meta.dirname, '..', '..', 'proxy', 'main.ts')],
    { env: { ...process.env, ...env, KASSA_LOG_LEVEL: level, PORT: '0' }, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const origin = await patiently(
    new Promise<string>((resolve, reject) => {
      let buffered = '';
      child.stdout.on('data', (chunk: Buffer) => {
        buffered += chunk.toString();
        const parts = buffered.split('\n');
        buffered = parts.pop()!;
        for (const line of parts.filter(Boolean)) {
          const entry = logEntry(line);
          if (entry?.msg === 'proxy listening' && entry.origin) resolve(entry.origin);
          if (!entry || LEVEL_RANK[entry.level] >= LEVEL_RANK[wanted]) lines.push(line);
        }
      });
      child.once('exit', (code, signal) =>
        reject(new Error(`the proxy process ended before it listened (${signal ?? code})`)),
      );
    }),
    'a proxy process to listen',
  ).catch((error: unknown) => {
    // One that never said it listens is not left running after the test.
    child.kill('SIGKILL');
    throw error;
  });
  const end = async (signal: NodeJS.Signals) => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill(signal);
    await exited;
  };
  return {
    origin,
    pid: child.pid,
    stop: () => end('SIGTERM'),
    crash: () => end('SIGKILL'),
    running: () => child.exitCode === null && child.signalCode === null,
  };
}

/** The stores a fleet can share its state through (SQLite: a "fleet" of one process, for comparisons). */
export type FleetStore = 'sqlite' | 'redis' | 'postgres';
export const FLEET_STORES: ReadonlyArray<{ store: FleetStore; name: string }> = [
  { store: 'redis', name: 'Redis' },
  { store: 'postgres', name: 'PostgreSQL' },
];

/** The settings of a fleet's shared store, on a server of its own unless one is given. */
async function fleetStore(
  store: FleetStore,
  given: PostgresServer | undefined,
  databaseUrl: string | undefined,
): Promise<{ server: RedisServer | PostgresServer | null; env: Record<string, string>; stop(): Promise<void> }> {
  if (store === 'sqlite') return { server: null, env: {}, stop: async () => undefined };
  if (store === 'redis') {
    const redis = await startRedis();
    const env = { KASSA_REDIS_URL: redis.url, KASSA_REDIS_PREFIX: `fleet-${randomBytes(4).toString('hex')}:` };
    return { server: redis, env, stop: () => redis.stop() };
  }
  const postgres = given ?? (await startPostgres());
  const env = { KASSA_DATABASE_URL: databaseUrl ?? (await postgres.createDatabase()) };
  return { server: postgres, env, stop: async () => (given ? undefined : postgres.stop()) };
}

/**
 * Several proxy instances of one merchant, as behind a load balancer: one configuration, one shared
 * store (Redis, or PostgreSQL with `store: 'postgres'`), one emulator. The emulator's webhook goes to
 * the first instance. Instances run in this process (tests can look inside them) or, with
 * `processes`, each in its own (benchmarks: real parallelism; tests that kill one with SIGKILL).
 */
export async function startFleet(options: {
  instances: number;
  logLevel?: string;
  sandbox?: Sandbox;
  processes?: boolean;
  store?: FleetStore;
  /** A PostgreSQL server to make the fleet's database on (and leave running at the end). */
  postgres?: PostgresServer;
  /** The fleet's database on that server, as the instances reach it (through a proxy, say). */
  databaseUrl?: string;
  /** Extra settings of every instance, by their environment names. */
  env?: Record<string, string>;
  proxy?: StartProxyOptions;
}) {
  const sandbox = options.sandbox ?? (await startSandbox({ settlementDelayMs: 0, mintDelayMs: null }));
  const store = options.store ?? 'redis';
  if (store === 'sqlite' && options.instances > 1) throw new Error('SQLite serves one process, not a fleet');
  const shared = await fleetStore(store, options.postgres, options.databaseUrl);
  const dir = mkdtempSync(join(tmpdir(), 'kassa-fleet-'));
  const env: Record<string, string> = {
    // Used by a fleet of one on SQLite only.
    ...proxyEnvFor(sandbox, join(dir, 'kassa.db')),
    ...shared.env,
    KASSA_RATE_LIMIT: '0',
    KASSA_CREATE_RATE_LIMIT: '0',
    KASSA_LOG_LEVEL: options.logLevel ?? 'info',
    ...options.env,
  };
  const config = loadConfig(env);
  const logs: string[][] = [];
  const start = async (index: number): Promise<Instance> => {
    logs[index] ??= [];
    const instance = options.processes
      ? await spawnInstance(env, logs[index])
      : await startProxy(config, {
          logSink: (line) => logs[index]!.push(line),
          setupLink: (line) => logs[index]!.push(line),
          tokenRefusalHoldMs: 200,
          followerSweepMs: 1_000,
          ...options.proxy,
        });
    watchAnswers(instance.origin);
    return instance;
  };
  const instances: Array<Instance | undefined> = [];
  const stopAll = async () => {
    for (const instance of instances) {
      if (instance) unwatchAnswers(instance.origin);
      await instance?.stop();
    }
    await shared.stop();
    if (!options.sandbox) await sandbox.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  let admin: TestOperator;
  try {
    for (let i = 0; i < options.instances; i++) instances.push(await start(i));
    // The operator routes' caller: an admin with a personal API token, made as a deployment would.
    const first = instances[0]!;
    admin = first.services
      ? await addOperator({ services: first.services }, 'admin', 'Fleet Admin')
      : await addOperatorByCommand(env, 'admin', 'Fleet Admin');
  } catch (error) {
    // A fleet that could not be made leaves nothing running: its test process ends with its failure.
    await stopAll();
    throw error;
  }
  const webhookUrl = `${instances[0]!.origin}/hooks/payments/${config.webhookSecret}`;
  await http(`${sandbox.control}/keys/${sandbox.keyId}`, { method: 'PATCH', body: { webhookUrl } });

  const at = (index: number) => {
    const instance = instances[index];
    if (!instance) throw new Error(`instance ${index} is stopped`);
    return instance;
  };
  const fleet = {
    sandbox,
    /** The shared store's server: Redis, or PostgreSQL (none for SQLite). */
    get storeServer() {
      if (!shared.server) throw new Error('a fleet on SQLite has no store server');
      return shared.server;
    },
    env,
    config,
    logs,
    at,
    admin,
    /** As the admin, on one instance. */
    operator: (index: number, path: string, init: { body?: unknown; method?: string } = {}) =>
      http(`${at(index).origin}${path}`, { ...init, headers: admin.headers }),
    origin: (index: number) => at(index).origin,
    merchant: (index: number, path: string, body: unknown) =>
      http(`${at(index).origin}${path}`, { body, headers: { Authorization: `Bearer ${config.merchantKey}` } }),
    browser: (
      index: number,
      path: string,
      init: { body?: unknown; headers?: Record<string, string>; method?: string } = {},
    ) => http(`${at(index).origin}${path}`, { ...init, headers: { Origin: SHOP_ORIGIN, ...init.headers } }),
    async checkout(index = 0): Promise<string> {
      const response = await fleet.merchant(index, '/api/checkouts', {
        amount: '25.00',
        currencyCode: 'EUR',
        reference: 'FLEET-1',
      });
      if (response.status !== 201) throw new Error(`checkout: ${response.status} ${response.text}`);
      return response.body.checkoutId as string;
    },
    pay: (index: number, checkoutId: string, key = `key-${randomBytes(8).toString('hex')}`) =>
      fleet.browser(index, '/api/payments', { body: { checkoutId }, headers: { 'Idempotency-Key': key } }),
    control: (path: string, body?: unknown, method?: string) =>
      http(`${sandbox.control}${path}`, { method: method ?? (body === undefined ? 'GET' : 'POST'), body }),
    metric: async (name: string) => ((await fleet.control('/metrics')).body[name] as number | undefined) ?? 0,
    /** Stops one instance, as a crash or a scale-down would. */
    async kill(index: number) {
      unwatchAnswers(at(index).origin);
      await at(index).stop();
      instances[index] = undefined;
    },
    /** Ends one instance with SIGKILL (process instances only): nothing flushed, nothing shut down. */
    async crash(index: number) {
      const instance = at(index);
      if (!instance.crash) throw new Error('only a fleet of processes can crash');
      await instance.crash();
      instances[index] = undefined;
    },
    /** Starts a stopped (or crashed) instance again, with the same settings. */
    async revive(index: number) {
      if (instances[index]) throw new Error(`instance ${index} is running`);
      instances[index] = await start(index);
    },
    stop: stopAll,
  };
  return fleet;
}

export type Fleet = Awaited<ReturnType<typeof startFleet>>;
