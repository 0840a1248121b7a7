import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, type ProxyConfig } from '../../proxy/config.ts';
import { startProxy, type RunningProxy, type StartProxyOptions } from '../../proxy/server.ts';
import { startSandbox, type Sandbox, type SandboxOptions } from '../../sandbox/server.ts';
import { unwatchAnswers, watchAnswers } from './api-conformance.ts';
import { http, type HttpInit, type HttpResult } from './http.ts';
import { addOperator, approveAs, type TestOperator } from './operators.ts';
import { holdPort } from './port-holder.ts';
import type { Role } from '../../schemas/operators.ts';
import { sharedPostgres } from './postgres-server.ts';
import { startRedis, type RedisServer } from './redis-server.ts';
import { PATIENCE_MS } from './patience.ts';

export const SHOP_ORIGIN = 'http://127.0.0.1:9';

/**
 * `KASSA_TEST_STORE=redis` runs every stack of this process on one real redis-server (each stack
 * under its own key prefix), `KASSA_TEST_STORE=postgres` on one real PostgreSQL server (each stack
 * in a database of its own), so that the proxy suites prove every store the same way.
 */
let sharedRedis: Promise<RedisServer> | undefined;
async function storeSettings(): Promise<Record<string, string>> {
  switch (process.env.KASSA_TEST_STORE) {
    case 'redis':
      return {
        KASSA_REDIS_URL: (await (sharedRedis ??= startRedis())).url,
        KASSA_REDIS_PREFIX: `test-${randomBytes(6).toString('hex')}:`,
      };
    case 'postgres':
      return { KASSA_DATABASE_URL: await (await sharedPostgres()).createDatabase() };
    default:
      return {};
  }
}

export interface StackOptions {
  sandbox?: SandboxOptions;
  /** Extra or replaced proxy settings, by their environment names. */
  env?: Record<string, string>;
  proxy?: StartProxyOptions;
  /** An existing sandbox to use (and not stop). */
  reuseSandbox?: Sandbox;
}

/** A proxy's environment against this emulator, as a merchant would set it, with fresh secrets. */
export function proxyEnvFor(sandbox: Sandbox, db: string) {
  return {
    PORT: '0',
    KASSA_PAY_BASE_URL: sandbox.pay,
    KASSA_PAY_CLIENT_SECRET: sandbox.clientSecret,
    KASSA_ORDERS_BASE_URL: sandbox.orders,
    KASSA_ORDERS_API_KEY: sandbox.ordersApiKey,
    KASSA_REFORGE_BASE_URL: sandbox.reforge,
    KASSA_MERCHANT_KEY: `mk_${randomBytes(16).toString('hex')}`,
    KASSA_ALLOWED_ORIGINS: SHOP_ORIGIN,
    KASSA_RETURN_URLS: `${SHOP_ORIGIN}/return`,
    KASSA_FLOW_HOSTS: new URL(sandbox.origin).host,
    KASSA_WEBHOOK_SECRET: randomBytes(24).toString('base64url'),
    KASSA_DB: db,
  };
}

/**
 * The real stack on loopback: the emulator, and a proxy configured against it the way a merchant
 * would configure it, with its webhook registered. Log lines are kept for inspection.
 */
export async function startStack(options: StackOptions = {}) {
  const sandbox =
    options.reuseSandbox ?? (await startSandbox({ settlementDelayMs: 0, mintDelayMs: null, ...options.sandbox }));
  const dir = mkdtempSync(join(tmpdir(), 'kassa-stack-'));
  const env: Record<string, string> = {
    ...proxyEnvFor(sandbox, join(dir, 'kassa.db')),
    KASSA_RATE_LIMIT: '0',
    KASSA_CREATE_RATE_LIMIT: '0',
    ...(await storeSettings()),
    ...options.env,
  };
  const logs: string[] = [];
  /** What the proxy prints on standard error outside the log: the first admin's setup link. */
  const printed: string[] = [];
  let config: ProxyConfig = loadConfig(env);
  let proxy: RunningProxy = await startProxy(config, {
    logSink: (line) => logs.push(line),
    setupLink: (line) => printed.push(line),
    tokenRefusalHoldMs: 200,
    ...options.proxy,
  });
  // The operator routes' caller unless a test says otherwise: an admin with a personal API token.
  const admin: TestOperator = await addOperator(proxy, 'admin', 'Test Admin').catch(async (error: unknown) => {
    // A stack that could not be made leaves nothing running: its test process ends with its failure.
    await proxy.stop();
    if (!options.reuseSandbox) await sandbox.stop();
    rmSync(dir, { recursive: true, force: true });
    throw error;
  });
  let approver: TestOperator | undefined;
  // Every answer of this proxy that a test reads through the HTTP helper is checked against its document.
  watchAnswers(proxy.origin);
  const webhookUrl = () => `${proxy.origin}/hooks/payments/${config.webhookSecret}`;
  await http(`${sandbox.control}/keys/${sandbox.keyId}`, { method: 'PATCH', body: { webhookUrl: webhookUrl() } });

  const call =
    (token: string | undefined) =>
    (path: string, init: HttpInit = {}) =>
      http(`${proxy.origin}${path}`, {
        ...init,
        headers: { ...(token ? { Authorization: `Bearer ${token}` } : {}), ...init.headers },
      });

  const stack = {
    sandbox,
    get proxy() {
      return proxy;
    },
    get config() {
      return config;
    },
    env,
    logs,
    printed,
    webhookUrl,
    /**
     * What made the proxy change this payment to `status`, from its log: `webhook` (a read for the
     * bank's webhook), `watch` (a watching page's re-read), `follow`, `queued` or `resolved`; undefined
     * while it has not.
     */
    changedBy(transactionId: string, status: string): string | undefined {
      return logs
        .filter((line) => line.includes('"msg":"payment status changed"') && line.includes(transactionId))
        .map((line) => JSON.parse(line) as { status: string; reason: string })
        .find((change) => change.status === status)?.reason;
    },
    merchant: (path: string, init?: Parameters<ReturnType<typeof call>>[1]) => call(config.merchantKey)(path, init),
    /** An admin (see admin), whom a test needing another role or person replaces with addOperator. */
    admin,
    operator: (path: string, init?: Parameters<ReturnType<typeof call>>[1]) => call(admin.token)(path, init),
    /** Another operator of `role`, with a personal API token (test/support/operators.ts). */
    addOperator: (role: Role, name?: string) => addOperator(proxy, role, name),
    /**
     * A money action as dual control has it: `asked` (the admin's 202) approved by a second admin, made
     * on first use; the approval's answer, with its state (executed, failed) and result.
     */
    async approved(asked: Promise<HttpResult> | HttpResult): Promise<HttpResult> {
      approver ??= await addOperator(proxy, 'admin', 'Second Admin');
      return approveAs(proxy.origin, approver, asked);
    },
    /** As the customer's browser on the shop's page: the shop's Origin, no credentials. */
    browser: (path: string, init: HttpInit = {}) =>
      call(undefined)(path, { ...init, headers: { Origin: SHOP_ORIGIN, ...init.headers } }),
    async checkout(body: Record<string, unknown> = {}): Promise<string> {
      const response = await stack.merchant('/api/checkouts', {
        body: { amount: '42.50', currencyCode: 'EUR', reference: 'ORDER-1', ...body },
      });
      if (response.status !== 201) throw new Error(`checkout: ${response.status} ${response.text}`);
      return response.body.checkoutId as string;
    },
    pay(checkoutId: string, key = `key-${randomBytes(8).toString('hex')}`, init: HttpInit = {}) {
      return stack.browser('/api/payments', { ...init, body: { checkoutId }, headers: { 'Idempotency-Key': key } });
    },
    control(path: string, body?: unknown, method?: string) {
      return http(`${sandbox.control}${path}`, { method: method ?? (body === undefined ? 'GET' : 'POST'), body });
    },
    /** Stops the proxy and starts it again on the same database (a restart). */
    async restart(envChanges: Record<string, string> = {}, whileDown?: () => Promise<void>): Promise<void> {
      const { port } = proxy;
      unwatchAnswers(proxy.origin);
      await proxy.stop();
      Object.assign(env, envChanges);
      config = loadConfig(env);
      // Back on the same port: held while down, so that no server of a test running beside this one
      // is given it meanwhile. Every connection is dropped, as a stopped proxy's would fail.
      const holder = config.port === port ? await holdPort(port) : undefined;
      // Started again whatever whileDown did: a failure there is its test's alone, not the next tests'.
      const failed = await whileDown?.().then(
        () => undefined,
        (error: unknown) => ({ error }),
      );
      await holder?.close();
      proxy = await startProxy(config, {
        logSink: (line) => logs.push(line),
        setupLink: (line) => printed.push(line),
        tokenRefusalHoldMs: 200,
        ...options.proxy,
      });
      watchAnswers(proxy.origin);
      await http(`${sandbox.control}/keys/${sandbox.keyId}`, { method: 'PATCH', body: { webhookUrl: webhookUrl() } });
      if (failed) throw failed.error;
    },
    /**
     * Moves the proxy to a new sandbox key (created, approved, its secret configured, the proxy
     * restarted) and revokes the old one: payments in flight complete upstream under a key Kassa can no
     * longer read them with.
     */
    async replacePayKey(): Promise<void> {
      const oldKey = sandbox.keyId;
      const created = await stack.control('/keys', { environment: 'sandbox' });
      await stack.control(`/keys/${created.body.keyId}/approve`, {});
      await stack.restart({ KASSA_PAY_CLIENT_SECRET: created.body.clientSecret });
      await stack.control(`/keys/${oldKey}/revoke`, {});
    },
    async stop(): Promise<void> {
      unwatchAnswers(proxy.origin);
      await proxy.stop();
      if (!options.reuseSandbox) await sandbox.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return stack;
}

export type Stack = Awaited<ReturnType<typeof startStack>>;

/** Polls until `check` returns a value (not undefined); fails, naming `what`, only when it never does. */
export async function eventually<T>(
  check: () => Promise<T | undefined> | T | undefined,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + PATIENCE_MS;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
