import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { runCommand } from '../support/run-command.ts';
import { eventually, startStack, type Stack } from '../support/stack.ts';

const root = join(import.meta.dirname, '..', '..');
const guide = readFileSync(join(root, 'docs', 'integrate.md'), 'utf8');

/** The guide's examples by name: each fenced block comes right after its `<!-- example: name -->`. */
function examplesOf(markdown: string): Map<string, string> {
  const named = new Map(
    [...markdown.matchAll(/<!-- example: ([\w.-]+) -->\n\n```\w+\n([\s\S]*?)\n```\n/g)].map(([, name, code]) => [
      name!,
      `${code}\n`,
    ]),
  );
  const fenced = [...markdown.matchAll(/^```\w/gm)].length;
  assert.equal(named.size, fenced, 'every code block of docs/integrate.md is a named example, run here');
  return named;
}

interface Delivery {
  headers: Record<string, string>;
  body: Buffer;
  status: number;
}

/**
 * Where the proxy sends its events: each delivery is passed on to the Python receiver unchanged and
 * answered with its answer, and kept, so the shell check can be tried on a real one.
 */
async function forwardTo(target: () => string): Promise<{ url: string; deliveries: Delivery[]; server: Server }> {
  const deliveries: Delivery[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const headers = Object.fromEntries(
        ['content-type', 'webhook-id', 'webhook-timestamp', 'webhook-signature'].map((name) => [
          name,
          String(req.headers[name]),
        ]),
      );
      void fetch(target(), { method: 'POST', headers, body }).then(
        async (answer) => {
          deliveries.push({ headers, body, status: answer.status });
          res.writeHead(answer.status).end(await answer.text());
        },
        () => res.writeHead(502).end(),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/kassa/events`, deliveries, server };
}

describe('docs/integrate.md: every example runs as written', () => {
  const examples = examplesOf(guide);
  const secret = `whsec_${randomBytes(32).toString('base64')}`;
  const work = join(root, '.tmp', `integrate-${randomBytes(4).toString('hex')}`);
  let stack: Stack;
  let python: ChildProcessWithoutNullStreams;
  let pythonUrl = '';
  const printed: string[] = [];
  let forwarder: Awaited<ReturnType<typeof forwardTo>>;
  let env: NodeJS.ProcessEnv;

  /** Runs a shell example in the work directory, as a merchant would paste it. */
  const shell = (name: string, extra: Record<string, string> = {}) =>
    runCommand('bash', ['-e', '-c', examples.get(name)!], { cwd: work, env: { ...env, ...extra } });

  before(async () => {
    // Inside the repository, so that npx and imports find this checkout's packages (no download).
    mkdirSync(work, { recursive: true });
    writeFileSync(join(work, 'receive-events.py'), examples.get('receive-events.py')!);
    python = spawn('python3', ['receive-events.py'], {
      cwd: work,
      env: { PATH: process.env.PATH, KASSA_EVENTS_SECRET: secret, PORT: '0' },
    });
    python.stdout.setEncoding('utf8').on('data', (chunk: string) => printed.push(...chunk.split('\n').filter(Boolean)));
    pythonUrl = await eventually(
      () => printed.map((line) => /^listening on (\S+)$/.exec(line)?.[1]).find(Boolean),
      'the Python receiver to listen',
    );
    forwarder = await forwardTo(() => `${pythonUrl}/kassa/events`);
    stack = await startStack({ env: { KASSA_EVENTS_URL: forwarder.url, KASSA_EVENTS_SECRET: secret } });
    env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      npm_config_offline: 'true',
      REDOCLY_TELEMETRY: 'off',
      KASSA_PROXY_URL: stack.proxy.origin,
      KASSA_MERCHANT_KEY: stack.config.merchantKey,
      KASSA_EVENTS_SECRET: secret,
    };
  });
  after(async () => {
    python?.kill();
    forwarder?.server.close();
    await stack?.stop();
    rmSync(work, { recursive: true, force: true });
  });

  it('names its examples: curl, Python, the shell check, the generated client', () => {
    assert.deepEqual([...examples.keys()].sort(), [
      'create-checkout.sh',
      'create-checkout.ts',
      'generate-types.sh',
      'read-checkout.sh',
      'receive-events.py',
      'verify-event.sh',
    ]);
  });

  let checkoutId = '';
  it('curl creates a checkout (a retry with its Idempotency-Key gets the same one) and reads it back', async () => {
    const first = await shell('create-checkout.sh');
    assert.equal(first.status, 0, first.stderr + first.stdout);
    const created = JSON.parse(first.stdout) as Record<string, unknown>;
    assert.equal(created.amount, '42.50');
    assert.equal(created.state, 'open');
    assert.deepEqual(created.metadata, { orderId: 1042 });
    checkoutId = created.checkoutId as string;
    const again = JSON.parse((await shell('create-checkout.sh')).stdout) as { checkoutId: string };
    assert.equal(again.checkoutId, checkoutId);
    const read = await shell('read-checkout.sh', { CHECKOUT_ID: checkoutId });
    assert.equal(read.status, 0, read.stderr + read.stdout);
    assert.deepEqual(JSON.parse(read.stdout), created);
    const refused = await shell('read-checkout.sh', { CHECKOUT_ID: checkoutId, KASSA_MERCHANT_KEY: 'not-the-key' });
    assert.notEqual(refused.status, 0, 'curl fails on a 4xx (--fail-with-body)');
    assert.match(refused.stdout, /KASSA_MERCHANT_KEY/);
  });

  it('the Python receiver verifies the proxy’s events and fulfils the order once; a forged or stale one gets 400', async () => {
    const payment = (await stack.pay(checkoutId)).body;
    await stack.control(`/payments/${payment.transactionId}/outcome`, { status: 'COMPLETED' });
    await eventually(() => (printed.includes('fulfil order ORDER-1042 (42.50 EUR)') ? true : undefined));
    const delivered = await eventually(async () => {
      const { events } = (await stack.operator('/api/events')).body as { events: Array<Record<string, string>> };
      return events.length === 2 && events.every((event) => event.status === 'delivered') ? events : undefined;
    });
    assert.ok(forwarder.deliveries.every((delivery) => delivery.status === 204));
    // A redelivery is answered, and not fulfilled twice.
    const paid = delivered.find((event) => event.type === 'checkout.paid')!;
    await stack.operator(`/api/events/${paid.id}/redeliver`, { method: 'POST' });
    await eventually(() => (forwarder.deliveries.length === 3 ? true : undefined));
    assert.equal(printed.filter((line) => line.startsWith('fulfil order')).length, 1);

    const real = forwarder.deliveries[0]!;
    const post = (headers: Record<string, string>, body: string | Buffer) =>
      fetch(`${pythonUrl}/kassa/events`, { method: 'POST', headers, body: new Uint8Array(Buffer.from(body)) });
    const changed = await post(real.headers, real.body.toString().replace('42.50', '0.01'));
    assert.equal(changed.status, 400);
    assert.equal(await changed.text(), 'no valid signature');
    const tenMinutesAgo = new Date(Date.now() - 10 * 60_000);
    const stale = await post(
      {
        ...real.headers,
        'webhook-timestamp': String(Math.floor(tenMinutesAgo.getTime() / 1000)),
        'webhook-signature': new Webhook(secret).sign(real.headers['webhook-id']!, tenMinutesAgo, real.body.toString()),
      },
      real.body,
    );
    assert.equal(stale.status, 400);
    assert.equal(await stale.text(), 'timestamp too old or too new');
    const unsigned = await post({ 'content-type': 'application/json' }, real.body);
    assert.equal(unsigned.status, 400);
  });

  it('the shell check accepts a delivery as received, and refuses it changed', async () => {
    const real = forwarder.deliveries[0]!;
    const headers = {
      WEBHOOK_ID: real.headers['webhook-id']!,
      WEBHOOK_TIMESTAMP: real.headers['webhook-timestamp']!,
      WEBHOOK_SIGNATURE: real.headers['webhook-signature']!,
    };
    writeFileSync(join(work, 'body.json'), real.body);
    const valid = await shell('verify-event.sh', headers);
    assert.equal(valid.status, 0, valid.stderr);
    assert.equal(valid.stdout, 'signature valid\n');
    writeFileSync(join(work, 'body.json'), Buffer.concat([real.body, Buffer.from(' ')]));
    const invalid = await shell('verify-event.sh', headers);
    assert.equal(invalid.status, 1);
    assert.equal(invalid.stderr, 'signature invalid\n');
  });

  it('a client generated by openapi-typescript, used with openapi-fetch, type-checks and creates and reads a checkout', async () => {
    const generated = await shell('generate-types.sh');
    assert.equal(generated.status, 0, generated.stderr);
    writeFileSync(join(work, 'create-checkout.ts'), examples.get('create-checkout.ts')!);
    writeFileSync(
      join(work, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          noEmit: true,
          target: 'es2022',
          module: 'esnext',
          moduleResolution: 'bundler',
          types: ['node'],
          skipLibCheck: true,
        },
        files: ['create-checkout.ts'],
      }),
    );
    const typed = await runCommand(process.execPath, [join(root, 'node_modules', 'tsc7', 'bin', 'tsc'), '-p', work]);
    assert.equal(typed.status, 0, typed.stdout + typed.stderr);
    const client = await runCommand(process.execPath, ['--import', 'tsx', 'create-checkout.ts'], { cwd: work, env });
    assert.equal(client.status, 0, client.stderr);
    assert.match(client.stdout, /^checkout chk_[\w-]+: 19\.90 EUR\nstate: open\n$/);
  });
});
