/**
 * The sandbox's --allow-private-http (allowPrivateHttp): a payment's redirectUrl of plain http to a
 * private-network address is taken only when it is given, never one to a public address or a name, and
 * the rule copied from the real service (https, or plain http to loopback) holds without it.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import { startSandbox, type Sandbox } from '../../sandbox/server.ts';
import { initiateRequestSchema } from '../../schemas/pay.ts';
import { otherIpv4, privateIpv4 } from '../support/arbitraries.ts';
import { sandboxClient, validPayment } from '../support/sandbox-client.ts';

const root = join(import.meta.dirname, '..', '..');
const ONE_CHAIN = [{ name: 'Kassa Local One', chainId: 31337 }];
const port = fc.integer({ min: 1, max: 65535 });

/** Initiates with each redirectUrl; the status each got. */
async function initiateEach(sandbox: Sandbox, redirectUrls: string[]): Promise<Record<string, number>> {
  const client = sandboxClient(sandbox);
  const token = await client.token();
  const statuses: Record<string, number> = {};
  for (const redirectUrl of redirectUrls) {
    const answer = await client.initiate(token, validPayment({ redirectUrl }));
    statuses[redirectUrl] = answer.status;
    if (answer.status === 400)
      assert.match(String(answer.body.error), /^redirectUrl must be an absolute https URL \(plain http only for/);
  }
  return statuses;
}

const ON_THE_NETWORK = ['http://192.168.1.20:8787/r/token', 'http://10.0.0.7/return', 'http://172.31.255.1:3000/'];
const NEVER = ['http://8.8.8.8/return', 'http://shop.example/return', 'http://169.254.10.1/', 'http://172.32.0.1/'];
const ALWAYS = ['https://shop.example/return', 'http://127.0.0.1:9/return', 'http://localhost:3000/'];

describe('sandbox: --allow-private-http', () => {
  const running: Sandbox[] = [];
  after(() => Promise.all(running.map((sandbox) => sandbox.stop())));

  it('the rule, fast-checked: private-network http only with it; public addresses and names never; https and loopback always', () => {
    const accepts = (privateHttp: boolean, redirectUrl: string) =>
      initiateRequestSchema(privateHttp).safeParse(validPayment({ redirectUrl })).success;
    fc.assert(
      fc.property(privateIpv4, port, fc.webPath(), (host, p, path) => {
        assert.equal(accepts(true, `http://${host}:${p}${path}`), true);
        assert.equal(accepts(false, `http://${host}:${p}${path}`), false);
      }),
    );
    fc.assert(
      fc.property(fc.oneof(otherIpv4, fc.domain()), port, fc.boolean(), (host, p, privateHttp) => {
        if (host === 'localhost') return;
        assert.equal(accepts(privateHttp, `http://${host}:${p}/return`), false, host);
        assert.equal(accepts(privateHttp, `https://${host}:${p}/return`), true, host);
      }),
    );
  });

  it('startSandbox({ allowPrivateHttp }): over HTTP, a return address on the network only with it', async () => {
    const strict = await startSandbox({ chains: ONE_CHAIN });
    running.push(strict);
    const lenient = await startSandbox({ chains: ONE_CHAIN, allowPrivateHttp: true });
    running.push(lenient);
    const urls = [...ON_THE_NETWORK, ...NEVER, ...ALWAYS];
    const expect = (onNetwork: number) =>
      Object.fromEntries(urls.map((url) => [url, ALWAYS.includes(url) ? 201 : NEVER.includes(url) ? 400 : onNetwork]));
    assert.deepEqual(await initiateEach(strict, urls), expect(400));
    assert.deepEqual(await initiateEach(lenient, urls), expect(201));
  });

  it('npm run sandbox -- --allow-private-http: the command line turns it on, and --help says so', async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'sandbox/cli.ts', '--port', '0', '--settlement-ms', '0', '--allow-private-http'],
      { cwd: root, stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      const [line] = (await Promise.race([
        once(createInterface({ input: child.stdout }), 'line'),
        once(child, 'exit').then(([code]) => Promise.reject(new Error(`the sandbox exited (${code}) before printing`))),
      ])) as [string];
      const { sandbox } = JSON.parse(line) as { sandbox: Sandbox };
      assert.deepEqual(await initiateEach(sandbox, [...ON_THE_NETWORK, NEVER[0]!]), {
        ...Object.fromEntries(ON_THE_NETWORK.map((url) => [url, 201])),
        [NEVER[0]!]: 400,
      });
    } finally {
      child.kill('SIGINT');
      await once(child, 'exit');
    }
    const help = spawn(process.execPath, ['--import', 'tsx', 'sandbox/cli.ts', '--help'], { cwd: root });
    let text = '';
    help.stdout.on('data', (data: Buffer) => (text += data.toString()));
    await once(help, 'exit');
    assert.match(
      text,
      /--allow-private-http\s+take a payment's redirectUrl of plain http to a private-network address/,
    );
  });
});
