/**
 * The packed tarball, installed into an empty project outside this repository, used the way a
 * merchant would: the two bins, kassa/server on the shop's server, kassa/widget bundled by Vite into a
 * plain page and into a React 19 app, and a payment completed on the emulator's bank in Chromium.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright';
import { launchChromium, waitForPhase, watchProblems } from '../support/browser.ts';
import { rawGet } from '../support/http.ts';
import { installProject, packTarball, runIn, startIn, type Started } from './support/outside-project.ts';

interface SandboxLine {
  sandbox: {
    origin: string;
    pay: string;
    orders: string;
    reforge: string;
    control: string;
    keyId: string;
    clientSecret: string;
    ordersApiKey: string;
  };
}
interface ProxyLine {
  msg: string;
  origin?: string;
}

const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css' };

describe('package: the tarball in a project of its own', () => {
  const work = mkdtempSync(join(tmpdir(), 'kassa-package-'));
  const project = join(work, 'shop');
  let tarball: string;
  let installMs: number;
  let installedAt: number;
  let sandbox: Started;
  let proxy: Started;
  let proxyOrigin: string;
  let shop: Server;
  let shopOrigin: string;
  let browser: Browser;
  let config = {};
  const merchantKey = `mk_${randomBytes(16).toString('hex')}`;
  const webhookSecret = randomBytes(24).toString('base64url');

  before(async () => {
    tarball = packTarball(work);
    const started = performance.now();
    installMs = installProject(project, tarball);
    installedAt = started;
    console.log(
      `# tarball ${(statSync(tarball).size / 1024).toFixed(0)} KB; npm install took ${(installMs / 1000).toFixed(1)} s`,
    );
    // The shop's pages, as its web server would serve them, and what its server tells them.
    shop = createServer((request, response) => {
      const path = new URL(request.url ?? '/', 'http://shop').pathname;
      if (path === '/config.json') {
        response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(config));
        return;
      }
      const file = join(project, 'dist', normalize(path === '/' ? '/index.html' : path));
      if (!file.startsWith(join(project, 'dist')) || !existsSync(file) || statSync(file).isDirectory()) {
        response.writeHead(404).end();
        return;
      }
      response
        .writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream' })
        .end(readFileSync(file));
    });
    await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
    shopOrigin = `http://127.0.0.1:${(shop.address() as { port: number }).port}`;
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await proxy?.stop();
    await sandbox?.stop();
    shop?.close();
    rmSync(work, { recursive: true, force: true });
  });

  it('holds only what its entry points run', () => {
    const listed = runIn(work, 'tar', ['-tzf', tarball]).split('\n').filter(Boolean);
    assert.ok(listed.includes('package/dist/widget/kassa.js'));
    // Its Brotli and gzip codings, which the proxy sends as they are.
    assert.ok(listed.includes('package/dist/widget/kassa.js.br') && listed.includes('package/dist/widget/kassa.js.gz'));
    assert.ok(listed.includes('package/dist/custom-elements.json'));
    for (const path of listed)
      assert.doesNotMatch(
        path,
        /^package\/(test|bench|demo|proxy|sandbox|widget|extension|tools)\/|\.map$|\.ts$(?<!\.d\.ts$)/,
        path,
      );
  });

  it('describes its elements in custom-elements.json, from their JSDoc', () => {
    const manifest = JSON.parse(
      readFileSync(join(project, 'node_modules', 'kassa', 'dist', 'custom-elements.json'), 'utf8'),
    ) as {
      modules: Array<{ path: string; declarations: Array<Record<string, Array<{ name: string }> | string>> }>;
    };
    const checkout = manifest.modules
      .flatMap((module) => module.declarations)
      .find((declaration) => declaration.tagName === 'kassa-checkout');
    assert.ok(checkout, 'kassa-checkout is declared');
    const names = (key: string) => (checkout[key] as Array<{ name: string }>).map((entry) => entry.name);
    assert.ok(names('attributes').includes('return-url'));
    assert.ok(names('events').includes('kassa-completed'));
    assert.ok(names('cssParts').length > 0 && names('cssProperties').length > 0);
    const onramp = manifest.modules
      .flatMap((module) => module.declarations)
      .find((declaration) => declaration.tagName === 'kassa-onramp');
    assert.ok(onramp, 'kassa-onramp is declared');
    const onrampNames = (key: string) => (onramp[key] as Array<{ name: string }>).map((entry) => entry.name);
    assert.ok(onrampNames('attributes').includes('purchase'));
    assert.ok(onrampNames('events').includes('kassa-onramp-delivered'));
    assert.ok(onrampNames('cssParts').includes('checkout'));
    assert.deepEqual(
      manifest.modules.map((module) => module.path),
      ['dist/widget/kassa.js'],
    );
  });

  it('both bins answer --help', () => {
    assert.match(runIn(project, 'npx', ['kassa-proxy', '--help']), /KASSA_PAY_BASE_URL/);
    assert.match(runIn(project, 'npx', ['kassa-sandbox', '--help']), /--port P/);
  });

  it('kassa/widget imported on a server does nothing harmful', () => {
    const { exports, window } = JSON.parse(runIn(project, 'node', ['ssr.mjs'])) as {
      exports: string[];
      window: string;
    };
    assert.deepEqual(exports, ['KassaCheckout']);
    assert.equal(window, 'undefined');
  });

  it('the shop’s React page, Vue and Svelte uses and server script type-check against the package’s declarations', () => {
    runIn(project, 'npx', ['tsc', '-p', 'tsconfig.json']);
  });

  it('runs the emulator and the proxy from their bins', async () => {
    sandbox = startIn(project, 'npx', ['kassa-sandbox', '--port', '0', '--settlement-ms', '0']);
    const { sandbox: upstream } = await sandbox.line<SandboxLine>((line) => 'sandbox' in line);
    proxy = startIn(project, 'npx', ['kassa-proxy'], {
      PORT: '0',
      KASSA_PAY_BASE_URL: upstream.pay,
      KASSA_PAY_CLIENT_SECRET: upstream.clientSecret,
      KASSA_ORDERS_BASE_URL: upstream.orders,
      KASSA_ORDERS_API_KEY: upstream.ordersApiKey,
      KASSA_REFORGE_BASE_URL: upstream.reforge,
      KASSA_MERCHANT_KEY: merchantKey,
      KASSA_ALLOWED_ORIGINS: shopOrigin,
      KASSA_RETURN_URLS: `${shopOrigin}/,${shopOrigin}/react.html`,
      KASSA_FLOW_HOSTS: new URL(upstream.origin).host,
      KASSA_WEBHOOK_SECRET: webhookSecret,
      KASSA_DB: join(project, 'kassa.db'),
    });
    proxyOrigin = (await proxy.line<ProxyLine>((line) => line.msg === 'proxy listening')).origin!;
    // The bank's payment notices go to the proxy, as a merchant registers them with the service.
    const registered = await fetch(`${upstream.control}/keys/${upstream.keyId}`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ webhookUrl: `${proxyOrigin}/hooks/payments/${webhookSecret}` }),
    });
    assert.equal(registered.status, 200);
    assert.equal((await fetch(`${proxyOrigin}/livez`)).status, 200);
    // The widget as the package holds it, in the coding the browser takes: the build's Brotli, sent as it is.
    const script = await rawGet(`${proxyOrigin}/kassa.js`, { 'Accept-Encoding': 'gzip, deflate, br, zstd' });
    assert.equal(script.headers['content-encoding'], 'br');
    assert.ok(
      script.body.equals(readFileSync(join(project, 'node_modules', 'kassa', 'dist', 'widget', 'kassa.js.br'))),
    );
  });

  it('Vite bundles pages that import kassa/widget', () => {
    runIn(project, 'npx', ['vite', 'build', '--logLevel', 'warn']);
    assert.ok(existsSync(join(project, 'dist', 'index.html')));
    assert.ok(existsSync(join(project, 'dist', 'react.html')));
  });

  /** The shop's server creates a checkout with kassa/server; its pages are told to show it. */
  const newCheckout = (reference: string) => {
    const created = JSON.parse(
      runIn(project, 'node', ['checkout.mjs', reference], { PROXY: proxyOrigin, MERCHANT_KEY: merchantKey }),
    ) as { checkoutId: string; state: string };
    assert.equal(created.state, 'open');
    config = { proxy: proxyOrigin, checkout: created.checkoutId };
    return created.checkoutId;
  };

  /** What a customer does on the emulator's bank page. */
  const authoriseAtBank = async (page: Page) => {
    await page.getByRole('button', { name: 'Pay by bank' }).click();
    await page.waitForURL(/\/pay\/flow\//);
    await page.getByLabel('XYZ Bank').check();
    await page.getByRole('button', { name: 'Authorise payment' }).click();
  };

  it('a plain page: the customer pays at the sandbox bank and the checkout is paid', async () => {
    const checkoutId = newCheckout('PLAIN-1');
    const page = await browser.newPage();
    const problems = watchProblems(page);
    await page.goto(`${shopOrigin}/`);
    await waitForPhase(page, 'ready');
    await authoriseAtBank(page);
    await waitForPhase(page, 'completed');
    const firstPaymentMs = performance.now() - installedAt;
    console.log(`# install to first payment: ${(firstPaymentMs / 1000).toFixed(1)} s`);
    const read = await fetch(`${proxyOrigin}/api/checkouts/${checkoutId}`, {
      headers: { Authorization: `Bearer ${merchantKey}` },
    });
    assert.equal(((await read.json()) as { state: string }).state, 'paid');
    assert.deepEqual(problems, []);
    await page.close();
  });

  it('a React 19 app renders <kassa-checkout> and hears its events through on… props', async () => {
    newCheckout('REACT-1');
    const page = await browser.newPage();
    const problems = watchProblems(page);
    await page.goto(`${shopOrigin}/react.html`);
    await waitForPhase(page, 'ready');
    // Before leaving for the bank, React heard the payment created.
    const leaving = page.waitForURL(/\/pay\/flow\//);
    await page.getByRole('button', { name: 'Pay by bank' }).click();
    await leaving;
    await page.getByLabel('XYZ Bank').check();
    await page.getByRole('button', { name: 'Authorise payment' }).click();
    await waitForPhase(page, 'completed');
    await page.locator('#heard li', { hasText: 'completed COMPLETED' }).waitFor();
    const heard = await page.locator('#heard li').allTextContents();
    assert.ok(
      heard.some((line) => line.startsWith('status ')),
      heard.join('; '),
    );
    assert.deepEqual(problems, []);
    await page.close();
  });
});
