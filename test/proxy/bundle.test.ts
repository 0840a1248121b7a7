import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { get, type IncomingHttpHeaders } from 'node:http';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { after, before, describe, it } from 'node:test';
import { startSandbox, type Sandbox } from '../../sandbox/server.ts';
import { http } from '../support/http.ts';
import { sharedPostgres } from '../support/postgres-server.ts';
import { eventually, proxyEnvFor } from '../support/stack.ts';

const root = join(import.meta.dirname, '..', '..');

/** A GET whose body is read as sent (fetch would decode it). */
function rawGet(url: string, headers: Record<string, string>) {
  return new Promise<{ headers: IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
    get(url, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve({ headers: response.headers, body: Buffer.concat(chunks) }));
    }).on('error', reject);
  });
}
const bundle = join(root, 'dist', 'proxy', 'server.js');

/** `npm run build:proxy` makes one file that runs with plain node, configured by the environment. */
describe('proxy: the self-contained bundle', () => {
  let sandbox: Sandbox;
  let dir: string;
  const env = () => proxyEnvFor(sandbox, join(dir, 'kassa.db'));

  before(async () => {
    // `npm test` built the package (the bundle included) before any suite: building it again here would
    // rewrite dist/proxy while the package suites, side by side, pack it.
    if (process.env.KASSA_PACKAGE_PREBUILT !== '1' || !existsSync(bundle)) {
      const built = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'tools', 'build-proxy.ts')], {
        cwd: root,
        encoding: 'utf8',
      });
      assert.equal(built.status, 0, built.stderr);
    }
    sandbox = await startSandbox();
    dir = mkdtempSync(join(tmpdir(), 'kassa-bundle-'));
  });
  after(async () => {
    await sandbox.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const stores = [
    { name: 'SQLite', settings: async (): Promise<Record<string, string>> => ({}) },
    {
      name: 'PostgreSQL',
      settings: async () => ({ KASSA_DATABASE_URL: await (await sharedPostgres()).createDatabase() }),
    },
  ];
  for (const store of stores)
    it(`runs with plain node from another directory and serves requests (${store.name})`, async () => {
      const settings = { ...env(), KASSA_API_DOCS: '1', ...(await store.settings()) };
      const child = spawn(process.execPath, [bundle], {
        cwd: dir,
        env: { PATH: process.env.PATH, ...settings },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const lines: string[] = [];
      child.stdout.on('data', (chunk: Buffer) => lines.push(...chunk.toString().split('\n').filter(Boolean)));
      try {
        const origin = await eventually(() => {
          const listening = lines
            .map((line) => JSON.parse(line) as { msg: string; origin?: string })
            .find((line) => line.msg === 'proxy listening');
          return listening?.origin;
        }, 'the bundle to listen');
        assert.deepEqual((await http(`${origin}/healthz`)).body, { ok: true });
        const checkout = await http(`${origin}/api/checkouts`, {
          body: { amount: '3.00', currencyCode: 'EUR', reference: 'BUNDLE-1' },
          headers: { Authorization: `Bearer ${settings.KASSA_MERCHANT_KEY}` },
        });
        assert.equal(checkout.status, 201);
        // A payment link's page, and its script as built beside the bundle (which builds nothing as it runs).
        const link = await http(`${origin}/api/links`, {
          body: { title: 'Bundle', amount: '3.00', currencyCode: 'EUR', reference: 'BUNDLE-{n}' },
          headers: { Authorization: `Bearer ${settings.KASSA_MERCHANT_KEY}` },
        });
        const page = await http(`${origin}/l/${link.body.code}`, { headers: { Accept: 'text/html' } });
        const script = await http(`${origin}${/src="(\/links\/scripts\/[^"]+)"/.exec(page.text)?.[1]}`);
        assert.equal(script.status, 200);
        assert.equal(script.text, readFileSync(join(root, 'dist', 'proxy', 'link-page.js'), 'utf8'));
        // The reference page's viewer, vendored at build time beside the bundle, is served as built.
        const viewer = await rawGet(`${origin}/docs/redoc.standalone.js`, { 'Accept-Encoding': 'gzip' });
        assert.equal(viewer.headers['content-encoding'], 'gzip');
        assert.ok(viewer.body.equals(readFileSync(join(root, 'dist', 'proxy', 'redoc.standalone.js.gz'))));
        assert.match(gunzipSync(viewer.body).toString('utf8', 0, 200), /@license MIT[\s\S]*Redocly/);
        for (const secret of [
          settings.KASSA_PAY_CLIENT_SECRET,
          settings.KASSA_MERCHANT_KEY,
          settings.KASSA_WEBHOOK_SECRET,
        ]) {
          assert.ok(!lines.some((line) => line.includes(secret)), 'no secret in its logs');
        }
      } finally {
        child.kill('SIGTERM');
        await new Promise((resolve) => child.once('exit', resolve));
      }
      assert.equal(child.exitCode ?? 0, 0, 'a clean stop on SIGTERM');
    });

  it('refuses to start on a bad setting, naming it', () => {
    const result = spawnSync(process.execPath, [bundle], {
      cwd: dir,
      env: { PATH: process.env.PATH, ...env(), KASSA_FLOW_HOSTS: 'https://not-a-host/' },
      encoding: 'utf8',
    });
    assert.equal(result.status, 2);
    assert.match(result.stderr, /^Kassa proxy: bad configuration: KASSA_FLOW_HOSTS: /);
  });

  it('the built files carry no sandbox credentials and no private key', () => {
    const text = readFileSync(bundle, 'utf8') + readFileSync(`${bundle}.map`, 'utf8');
    for (const value of [sandbox.clientSecret, sandbox.ordersApiKey]) assert.ok(!text.includes(value));
    assert.doesNotMatch(
      text,
      /ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80/,
      "no anvil account key (the emulator's code is not in the proxy)",
    );
  });
});
