/**
 * `npm start`: the demo a newcomer runs first. Started as the command starts it (on free ports
 * here), paid through in Chromium, and stopped with Ctrl+C; and its answer when a port is taken. What
 * it printed is kept as test-artifacts/demo/npm-start.txt, the extension's steps as screenshots.
 *
 * `npm start -- --lan`: servers in tests listen on 127.0.0.1 alone, so the demo is wired for a network
 * through the same code with 127.0.0.1 as its address (`--lan 127.0.0.1`), and a phone (a second browser
 * context) pays from its QR code; how the address is picked from a computer's interfaces is tested on
 * interface lists made up here. Its output: test-artifacts/demo/npm-start-lan.txt.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { networkInterfaces, type NetworkInterfaceInfo } from 'node:os';
import { after, describe, it } from 'node:test';
import { Wallet } from 'ethers';
import fc from 'fast-check';
import { devices } from 'playwright';
import { chooseLanAddress, LanAddressError, lanAddresses, type Interfaces } from '../../demo/lan-address.ts';
import { answerAtBank, holdAtBank } from './support/bank.ts';
import { scanQr } from './support/phone.ts';
import { launchChromium, partText, waitForPhase, watchProblems } from '../support/browser.ts';
import { ipv4, dotted, inRfc1918 } from '../support/arbitraries.ts';
import { http, rawGet } from '../support/http.ts';
import { PATIENCE_MS } from '../support/patience.ts';
import { validPayment } from '../support/sandbox-client.ts';
import { ARTIFACTS, keepScreenshot, SCREENS } from '../support/screenshots.ts';

const root = join(import.meta.dirname, '..', '..');
/** What the demo's keys look like (demo/demo.ts, sandbox key-registry): none may be shown. */
const SECRET_SHAPES = [
  /\bmk_[\w-]{20,}/,
  /\bop_[\w-]{20,}/,
  /\bcs_sandbox_[\w-]{20,}/,
  /\bok_[\w-]{20,}/,
  /hooks\/payments\/[\w-]{20,}/,
  /\bwhsec_[\w+/=]{20,}/,
];

function startDemo(...args: string[]): { child: ChildProcess; output: () => string } {
  // node with tsx's loader, not the tsx command: that one relays Ctrl+C to its child and, on a busy
  // machine, kills it when the child does not acknowledge within 30 ms (exit 130).
  const child = spawn(process.execPath, ['--import', 'tsx', 'demo/start.ts', ...args], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (data: Buffer) => (output += data.toString()));
  child.stderr.on('data', (data: Buffer) => (output += data.toString()));
  return { child, output: () => output };
}

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + PATIENCE_MS;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('e2e: npm start (the demo)', () => {
  const children: ChildProcess[] = [];
  after(() => children.forEach((child) => child.exitCode === null && child.kill('SIGKILL')));

  it('prints where to go; a customer pays on the bank page, sees it completed and confirmed by the shop; no secret shows', async () => {
    const demo = startDemo('--shop-port', '0', '--proxy-port', '0', '--sandbox-port', '0');
    children.push(demo.child);
    await until(() => demo.output().includes('Ctrl+C stops it'), 'the demo to start');
    const shop = /Shop\s+(http:\/\/127\.0\.0\.1:\d+)\//.exec(demo.output())?.[1];
    assert.ok(shop, demo.output());
    const proxyOrigin = /Proxy\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(demo.output())?.[1];
    assert.ok(proxyOrigin, demo.output());
    assert.match(demo.output(), /Buy\s+http:\/\/127\.0\.0\.1:\d+\/buy\s/);
    const sandboxOrigin = /Sandbox\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(demo.output())?.[1];
    assert.ok(sandboxOrigin, demo.output());
    const emulator = { control: (path: string, body?: unknown) => http(`${sandboxOrigin}/_sandbox${path}`, { body }) };
    const reference = /API\s+(http:\/\/127\.0\.0\.1:\d+\/docs)/.exec(demo.output())?.[1];
    assert.equal((await fetch(reference!)).headers.get('content-type'), 'text/html; charset=UTF-8');
    // The Kassa extension is built and its folder printed, to load unpacked, and the proxy URL its Settings take.
    const folder = /Extension\s+(\S+)/.exec(demo.output())?.[1];
    assert.ok(folder && existsSync(join(folder, 'manifest.json')), demo.output());
    assert.match(demo.output(), new RegExp(`then in its Settings the proxy URL ${proxyOrigin}`));
    // One test account to use, marked as the sandbox's only: its key controls the address printed.
    const account = /Account\s+(0x[0-9a-fA-F]{40})/.exec(demo.output())?.[1];
    const key = /key (0x[0-9a-f]{64})/.exec(demo.output())?.[1];
    assert.ok(account && key, demo.output());
    assert.equal(new Wallet(key).address, account);
    assert.match(demo.output(), /SANDBOX ONLY: anvil's public development key, never for real money/);
    // The first admin's one-time setup link, once, in the summary: its page opens (on localhost, for passkeys).
    const setup = /Operator\s+(http:\/\/127\.0\.0\.1:\d+\/operator\/setup)#[\w-]{20,}/.exec(demo.output())?.[1];
    assert.ok(setup, demo.output());
    assert.equal(demo.output().split('/operator/setup#').length, 2, 'printed once');
    const setupPage = await fetch(setup, { redirect: 'manual' });
    assert.equal(setupPage.status, 307);
    assert.match(setupPage.headers.get('location') ?? '', /^http:\/\/localhost:\d+\/operator\/setup/);
    mkdirSync(join(ARTIFACTS, 'demo'), { recursive: true });
    writeFileSync(join(ARTIFACTS, 'demo', 'npm-start.txt'), demo.output());

    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      const problems = watchProblems(page);
      const html = await (await page.goto(`${shop}/`))!.text();
      await waitForPhase(page, 'ready');
      await page.getByRole('button', { name: 'Pay by bank' }).click();
      await page.waitForURL(/\/pay\/flow\//);
      assert.match(
        (await page.locator('.payee').textContent()) ?? '',
        /To\s+Kassa demo shop/,
        'the bank names the shop',
      );
      const bank = await holdAtBank(page, emulator);
      await answerAtBank(page, 'Authorise payment');
      await waitForPhase(page, 'waiting');
      await bank.release();
      await waitForPhase(page, 'completed');
      assert.equal(await partText(page, 'status'), 'Payment received. Thank you!');
      assert.ok((await page.locator('#events li').count()) >= 2, 'the page lists the events');
      // The shop's server heard it from the proxy too, as a signed checkout.paid event it verified.
      await page
        .locator('#confirmation', { hasText: "Paid, confirmed by the shop's server" })
        .waitFor({ timeout: PATIENCE_MS });
      for (const shape of SECRET_SHAPES) assert.doesNotMatch(html, shape);

      // The extension's steps: the Settings with this proxy's URL, and the sandbox's test account.
      for (const screen of ['phone', 'desktop'] as const) {
        const steps = await browser.newPage(SCREENS[screen]);
        await steps.goto(`${shop}/wallet/extension`);
        assert.equal(await steps.locator('#proxy-url').textContent(), proxyOrigin);
        assert.equal(await steps.locator('#test-account').textContent(), account);
        await keepScreenshot(steps, 'demo', 'extension-steps');
        await steps.close();
      }

      // /buy, from the shop's menu: the on-ramp lists what can be bought once a wallet is there, and
      // says so when the browser has none.
      await page.getByRole('link', { name: 'Buy', exact: true }).click();
      await page.waitForURL(`${shop}/buy`);
      await page.locator('kassa-onramp[phase="connect"]').waitFor();
      await page.locator('kassa-onramp [part="status"]', { hasText: /No wallet found in this browser\./ }).waitFor();
      const offer = await page.evaluate(
        async (proxy) => (await fetch(`${proxy}/api/onramp/config`)).json(),
        proxyOrigin,
      );
      assert.deepEqual(offer.coins, [
        { currencyCode: 'EUR', symbol: 'eEUR' },
        { currencyCode: 'GBP', symbol: 'eGBR' },
      ]);
      assert.deepEqual([offer.min, offer.max, offer.walletLimit], ['1', '500', '1000']);
      assert.deepEqual(problems, []);
    } finally {
      await browser.close();
    }
    for (const shape of SECRET_SHAPES) assert.doesNotMatch(demo.output(), shape);

    demo.child.kill('SIGINT');
    const [code] = await once(demo.child, 'exit');
    assert.equal(code, 0);
  });

  it('a taken port: a clear message naming it and the option to change it, and nothing left running', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as AddressInfo;
    try {
      const demo = startDemo('--shop-port', '0', '--proxy-port', String(port), '--sandbox-port', '0');
      children.push(demo.child);
      const [code] = await once(demo.child, 'exit');
      assert.equal(code, 1);
      assert.match(demo.output(), new RegExp(`port ${port} \\(the proxy\\) is already in use.*--proxy-port`));
    } finally {
      taken.close();
    }
  });

  it('--lan 127.0.0.1: wired as for a network (public address, allowance, warning), a phone pays from the QR code', async () => {
    const demo = startDemo('--lan', '127.0.0.1', '--shop-port', '0', '--proxy-port', '0', '--sandbox-port', '0');
    children.push(demo.child);
    await until(() => demo.output().includes('Use it on a network you trust.'), 'the demo to start');
    mkdirSync(join(ARTIFACTS, 'demo'), { recursive: true });
    writeFileSync(join(ARTIFACTS, 'demo', 'npm-start-lan.txt'), demo.output());
    const output = demo.output();
    assert.match(output, /--lan 127\.0\.0\.1: wired as for a network, on this computer alone/);
    assert.match(output, /Kassa demo is running, on this computer and on your network at 127\.0\.0\.1 \(--lan\)\./);
    assert.match(
      output,
      /Phone {5}on the shop's page, “Pay with your phone” shows a QR code that a phone on this network opens/,
    );
    assert.match(output, /WARNING \(--lan\): anyone on your network can open this demo's shop, proxy and sandbox/);
    assert.match(output, /KASSA_ALLOW_PRIVATE_HTTP=1/);
    // The proxy says so itself, at start (its warn line).
    assert.match(output, /proxy: \{[^\n]*"level":"warn"[^\n]*KASSA_ALLOW_PRIVATE_HTTP is on/);
    const shop = /Shop\s+(http:\/\/127\.0\.0\.1:\d+)\//.exec(output)?.[1];
    const proxy = /Proxy\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
    assert.ok(shop && proxy, output);
    assert.doesNotMatch(proxy, /:0$/, 'port 0 became a real port before the proxy was told its address');
    // Its public address is the one --lan gave it (KASSA_PUBLIC_URL), whatever a request's Host says.
    const described = await rawGet(`${proxy}/openapi.json`, { Host: 'localhost:1' });
    assert.equal(JSON.parse(described.body.toString()).servers[0].url, proxy);
    for (const shape of SECRET_SHAPES) assert.doesNotMatch(output, shape);
    // Its sandbox takes a way back on the network (--allow-private-http): asked with a key of this test's own.
    const sandbox = /Sandbox\s+(http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
    const key = await http(`${sandbox}/_sandbox/keys`, { body: { environment: 'sandbox' } });
    await http(`${sandbox}/_sandbox/keys/${key.body.keyId}/approve`, { body: {} });
    const token = await http(`${sandbox}/pay/v1/auth/token`, {
      body: { grant_type: 'client_credentials', client_secret: key.body.clientSecret },
    });
    const initiated = await http(`${sandbox}/pay/v1/payments/initiate`, {
      body: validPayment({ redirectUrl: 'http://192.168.77.10:3000/return' }),
      headers: { Authorization: `Bearer ${token.body.access_token}` },
    });
    assert.equal(initiated.status, 201, initiated.text);

    const browser = await launchChromium();
    try {
      const desktop = await browser.newContext(SCREENS.desktop);
      const page = await desktop.newPage();
      const problems = watchProblems(page);
      await page.goto(`${shop}/`);
      await waitForPhase(page, 'ready');
      await page.getByRole('button', { name: 'Pay with your phone' }).click();
      await waitForPhase(page, 'phone');
      const link = await scanQr(page, desktop);
      assert.match(link, new RegExp(`^${proxy}/p/[A-Za-z0-9_-]{20,40}$`));

      const phone = await browser.newContext(devices['Pixel 7']);
      const onPhone = await phone.newPage();
      problems.push(...watchProblems(onPhone));
      await onPhone.goto(link);
      await answerAtBank(onPhone, 'Authorise payment');
      // Back from the bank through the proxy's public address (KASSA_PUBLIC_URL), to its page for the phone.
      await onPhone.waitForURL(new RegExp(`^${proxy}/r/`));
      await onPhone.locator('main[data-outcome="completed"]').waitFor({ timeout: PATIENCE_MS });
      await waitForPhase(page, 'completed');
      assert.equal(await partText(page, 'status'), 'Payment received. Thank you!');
      await page
        .locator('#confirmation', { hasText: "Paid, confirmed by the shop's server" })
        .waitFor({ timeout: PATIENCE_MS });
      assert.deepEqual(problems, []);
    } finally {
      await browser.close();
    }
    demo.child.kill('SIGINT');
    const [code] = await once(demo.child, 'exit');
    assert.equal(code, 0);
  });

  it('--lan with an address that is not private, or not this computer’s, or a stray word: a clear message, nothing started', async () => {
    const mine = new Set(
      Object.values(networkInterfaces()).flatMap((infos) => (infos ?? []).map((info) => info.address)),
    );
    // A private address this computer does not have: refused before anything listens.
    const absent = Array.from({ length: 256 }, (_, last) => `10.255.254.${last}`).find(
      (address) => !mine.has(address),
    )!;
    for (const [args, message] of [
      [
        ['--lan', '8.8.8.8'],
        /--lan 8\.8\.8\.8: not a private-network IPv4 address \(10\/8, 172\.16\/12, 192\.168\/16\)/,
      ],
      [['--lan', absent], new RegExp(`--lan ${absent.replaceAll('.', '\\.')}: not an address of this computer`)],
      [['--lan', '127.0.0.1', 'extra'], /unexpected "extra": options are .*--lan \[address\]/],
    ] as const) {
      const demo = startDemo(...args, '--shop-port', '0', '--proxy-port', '0', '--sandbox-port', '0');
      children.push(demo.child);
      const [code] = await once(demo.child, 'exit');
      assert.equal(code, 1, demo.output());
      assert.match(demo.output(), message);
      assert.doesNotMatch(demo.output(), /Kassa demo is running/);
    }
  });
});

describe('npm start -- --lan: the address a phone reaches, from the computer’s interfaces', () => {
  const info = (address: string, internal = false): NetworkInterfaceInfo =>
    address.includes(':')
      ? {
          address,
          family: 'IPv6',
          internal,
          netmask: 'ffff:ffff:ffff:ffff::',
          mac: '02:00:00:00:00:01',
          cidr: null,
          scopeid: 0,
        }
      : { address, family: 'IPv4', internal, netmask: '255.255.255.0', mac: '02:00:00:00:00:01', cidr: null };
  const loopback = { lo: [info('127.0.0.1', true), info('::1', true)] };
  const choose = (interfaces: Interfaces, requested?: string) => chooseLanAddress(requested, interfaces);

  it('picks the home network over VPNs and containers, and lists the others', () => {
    const laptop = {
      ...loopback,
      docker0: [info('172.17.0.1')],
      tun0: [info('10.8.0.2')],
      wlan0: [info('192.168.1.20'), info('fe80::1')],
    };
    assert.deepEqual(choose(laptop), {
      chosen: { address: '192.168.1.20', interface: 'wlan0' },
      others: [
        { address: '10.8.0.2', interface: 'tun0' },
        { address: '172.17.0.1', interface: 'docker0' },
      ],
    });
    // A container's bridge comes last even in 10/8; a cable's 10/8 before it.
    assert.deepEqual(
      lanAddresses({ 'br-1a2b': [info('10.10.0.1')], eth0: [info('10.0.0.5')], virbr0: [info('192.168.122.1')] }).map(
        (found) => found.interface,
      ),
      ['eth0', 'virbr0', 'br-1a2b'],
    );
  });

  it('none on a computer with only loopback, link-local, public, test-net or IPv6 addresses: says how to go on', () => {
    // This test machine's own shape: 192.0.2.2 is a documentation network's, not a private one.
    for (const interfaces of [
      loopback,
      { ...loopback, eth0: [info('192.0.2.2'), info('fd00::2'), info('fe80::fc:ff:fe00:1')] },
      { ...loopback, eth0: [info('169.254.3.4')], wwan0: [info('100.64.1.2')], eth1: [info('203.0.113.9')] },
      { ...loopback, eth0: [info('192.168.1.20', true)] },
    ])
      assert.throws(
        () => choose(interfaces),
        (error: unknown) =>
          error instanceof LanAddressError &&
          /no private-network IPv4 address .* join the phone's network .* --lan <address>/.test(error.message),
      );
  });

  it('a named address: one of this computer’s private ones, or 127.0.0.1; never another', () => {
    const laptop = { ...loopback, eth0: [info('10.0.0.5')], wlan0: [info('192.168.1.20')] };
    assert.deepEqual(choose(laptop, '10.0.0.5'), {
      chosen: { address: '10.0.0.5', interface: 'eth0' },
      others: [{ address: '192.168.1.20', interface: 'wlan0' }],
    });
    assert.deepEqual(choose(laptop, '127.0.0.1').chosen, { address: '127.0.0.1', interface: 'lo' });
    for (const [requested, message] of [
      [
        '192.168.1.21',
        /not an address of this computer; its private ones: 192\.168\.1\.20 \(wlan0\), 10\.0\.0\.5 \(eth0\)/,
      ],
      ['8.8.8.8', /not a private-network IPv4 address/],
      ['192.168.001.020', /not a private-network IPv4 address/],
      ['127.0.0.2', /not a private-network IPv4 address/],
      ['wlan0', /not a private-network IPv4 address/],
    ] as const)
      assert.throws(() => choose(laptop, requested), message);
  });

  it('fast-check: whatever the interfaces, every private external IPv4 address is found once, the chosen one of them', () => {
    const interfaceList = fc.dictionary(
      fc.constantFrom('eth0', 'wlan0', 'en0', 'docker0', 'br-x', 'tun0', 'lo', 'veth1'),
      fc.array(fc.tuple(ipv4, fc.boolean()), { maxLength: 4 }),
    );
    fc.assert(
      fc.property(interfaceList, (raw) => {
        const interfaces: Interfaces = Object.fromEntries(
          Object.entries(raw).map(([name, list]) => [
            name,
            list.map(([address, internal]) => info(dotted(address), internal)),
          ]),
        );
        const expected = Object.entries(raw).flatMap(([name, list]) =>
          list
            .filter(([address, internal]) => !internal && inRfc1918(address))
            .map(([address]) => `${dotted(address)} ${name}`),
        );
        const found = lanAddresses(interfaces).map((each) => `${each.address} ${each.interface}`);
        assert.deepEqual([...found].sort(), [...expected].sort());
        if (expected.length === 0) assert.throws(() => choose(interfaces), LanAddressError);
        else assert.equal(`${choose(interfaces).chosen.address} ${choose(interfaces).chosen.interface}`, found[0]);
      }),
    );
  });
});
