import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startSandbox, type Sandbox } from '../../sandbox/server.ts';
import { spawnInstance, type Instance } from '../support/fleet.ts';
import { http } from '../support/http.ts';
import { smallDisk, type SmallDisk } from '../support/small-disk.ts';
import { PATIENCE_MS } from '../support/patience.ts';
import { eventually, proxyEnvFor, SHOP_ORIGIN } from '../support/stack.ts';

const MAIN = join(import.meta.dirname, '..', '..', 'proxy', 'main.ts');

/** Runs `node proxy/main.ts` (after `prefix`, a command such as prlimit) until it exits by itself. */
function runToExit(env: Record<string, string>, prefix: string[] = []) {
  const [command, ...args] = [...prefix, process.execPath, '--import', 'tsx', MAIN];
  const child = spawn(command, args, {
    env: { ...process.env, ...env, PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the proxy never exited:\n${stdout}${stderr}`));
    }, PATIENCE_MS);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** A merchant and a customer against one proxy process. */
function client(origin: string, env: Record<string, string>) {
  return {
    checkout: () =>
      http(`${origin}/api/checkouts`, {
        body: { amount: '7.00', currencyCode: 'EUR', reference: 'DISK-1' },
        headers: { Authorization: `Bearer ${env.KASSA_MERCHANT_KEY}` },
      }),
    pay: (checkoutId: string, key = `disk-${randomBytes(6).toString('hex')}`) =>
      http(`${origin}/api/payments`, {
        body: { checkoutId },
        headers: { Origin: SHOP_ORIGIN, 'Idempotency-Key': key },
      }),
    ready: () => http(`${origin}/readyz`),
  };
}

describe('proxy: SQLite on a disk that fills up', () => {
  let sandbox: Sandbox;
  let disk: SmallDisk;
  before(async () => {
    sandbox = await startSandbox({ settlementDelayMs: 0 });
    disk = smallDisk();
    if (!disk.mounted) console.log('# tmpfs not mountable here: a full disk is simulated with a file-size limit');
  });
  after(async () => {
    await sandbox.stop();
    disk.close();
  });

  it('a full disk: writes get 503 with Retry-After, not 500; /readyz says the store is unavailable; reads go on; room again, it recovers', async () => {
    const env = {
      ...proxyEnvFor(sandbox, join(disk.dir, 'kassa.db')),
      KASSA_RATE_LIMIT: '0',
      KASSA_CREATE_RATE_LIMIT: '0',
    };
    const lines: string[] = [];
    const proxy: Instance = await spawnInstance(env, lines);
    const shop = client(proxy.origin, env);
    try {
      const paid = await shop.pay((await shop.checkout()).body.checkoutId);
      assert.equal(paid.status, 201, paid.text);
      const open = (await shop.checkout()).body.checkoutId as string;
      disk.fill(proxy.pid);

      const checkout = await shop.checkout();
      assert.equal(checkout.status, 503, checkout.text);
      assert.equal(checkout.headers.get('retry-after'), '2');
      assert.equal(checkout.body.error, 'Kassa cannot reach its store right now; try again in a moment');
      const payment = await shop.pay(open, 'full-disk-key');
      assert.equal(payment.status, 503, payment.text);
      const ready = await shop.ready();
      assert.equal(ready.status, 503);
      assert.equal(ready.body.reason, 'store_unavailable');
      assert.match(ready.body.detail, disk.mounted ? /database or disk is full/ : /disk I\/O error|full/);
      const status = await http(`${proxy.origin}/api/payments/status/${paid.body.statusToken}`, {
        headers: { Origin: SHOP_ORIGIN },
      });
      assert.equal(status.status, 200, 'what is stored can still be read');
      assert.ok(!lines.some((line) => line.includes('unhandled error')), 'no 500');
      assert.ok(lines.some((line) => line.includes('store unavailable')));

      disk.free(proxy.pid);
      await eventually(async () => ((await shop.ready()).status === 200 ? true : undefined), 'ready again');
      const after = await shop.pay(open, 'full-disk-key');
      assert.equal(after.status, 201, after.text);
    } finally {
      disk.free(proxy.pid);
      await proxy.stop();
    }
  });

  it('a proxy started on a full disk exits with one line naming the file and the reason, no stack', async () => {
    const db = join(disk.dir, 'fresh', 'kassa.db');
    disk.fill();
    try {
      const run = await runToExit(proxyEnvFor(sandbox, db), disk.fullFromTheStart());
      assert.equal(run.code, 1, run.stderr);
      const lines = run.stderr.trim().split('\n');
      assert.equal(lines.length, 1, run.stderr);
      assert.ok(lines[0]!.startsWith(`Kassa proxy: cannot start: KASSA_DB ${db}: `), lines[0]);
      assert.match(lines[0]!, disk.mounted ? /database or disk is full/ : /disk I\/O error|full|unable to open/);
      assert.ok(!/\n\s+at /.test(run.stderr), 'no stack trace');
    } finally {
      disk.free();
    }
  });
});

describe('proxy: two processes on one SQLite file', () => {
  let sandbox: Sandbox;
  let dir: string;
  before(async () => {
    sandbox = await startSandbox({ settlementDelayMs: 0 });
    dir = mkdtempSync(join(tmpdir(), 'kassa-two-'));
  });
  after(async () => {
    await sandbox.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the second is refused at start with a message naming the file; the first serves on; once it is gone, the file is free', async () => {
    const db = join(dir, 'kassa.db');
    const env = { ...proxyEnvFor(sandbox, db), KASSA_RATE_LIMIT: '0', KASSA_CREATE_RATE_LIMIT: '0' };
    const first = await spawnInstance(env, []);
    let third: Instance | undefined;
    try {
      const second = await runToExit(env);
      assert.equal(second.code, 1);
      assert.equal(
        second.stderr.trim(),
        `Kassa proxy: cannot start: KASSA_DB ${db}: another Kassa proxy process is using this file; run one process per file (a fleet shares PostgreSQL or Redis: KASSA_DATABASE_URL, KASSA_REDIS_URL)`,
      );
      const shop = client(first.origin, env);
      assert.equal((await shop.pay((await shop.checkout()).body.checkoutId)).status, 201, 'the first serves on');
      // A crash leaves no lock behind: the system lets go of it with the process.
      await first.crash!();
      third = await spawnInstance(env, []);
      assert.equal((await client(third.origin, env).ready()).status, 200);
    } finally {
      await first.stop();
      await third?.stop();
    }
  });
});
