/**
 * The Dockerfile, built and run where this machine can: podman or docker, with the base image at
 * hand (tests reach no registry but npm's). Where it cannot, the test says why and is skipped.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it, type TestContext } from 'node:test';
import { startSandbox, type Sandbox } from '../../sandbox/server.ts';
import { freePort } from '../support/free-port.ts';
import { proxyEnvFor } from '../support/stack.ts';
import { PATIENCE_MS } from '../support/patience.ts';

const root = join(import.meta.dirname, '..', '..');
const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
const BASE_IMAGE = /^FROM (\S+)/m.exec(dockerfile)![1]!;
const IMAGE = `kassa-test:${randomBytes(4).toString('hex')}`;

const run = (command: string, args: string[], timeout = 60_000) =>
  spawnSync(command, args, { cwd: root, encoding: 'utf8', timeout });

/** The engine to use, or why there is none. */
function containerEngine(): { engine: string } | { reason: string } {
  const seen: string[] = [];
  for (const engine of ['podman', 'docker']) {
    if (run('sh', ['-c', `command -v ${engine}`]).status !== 0) {
      seen.push(`${engine} is not installed`);
      continue;
    }
    const info = run(engine, ['info'], 20_000);
    if (info.status !== 0) {
      const why = (info.stderr || info.stdout).trim().split('\n').at(-1);
      seen.push(`${engine} cannot run containers (${why})`);
      continue;
    }
    if (run(engine, ['image', 'inspect', BASE_IMAGE]).status !== 0) {
      seen.push(`${engine} works but has no ${BASE_IMAGE} image, and no registry is reachable to pull it`);
      continue;
    }
    return { engine };
  }
  return { reason: seen.join('; ') };
}

const found = containerEngine();

/** Skips with the reason in the test's output, never silently. */
function needsEngine(t: TestContext): string | null {
  if ('engine' in found) return found.engine;
  console.log(`# container test skipped: ${found.reason}`);
  t.skip(found.reason);
  return null;
}

describe('package: the container', () => {
  let sandbox: Sandbox | undefined;
  const dir = mkdtempSync(join(tmpdir(), 'kassa-container-'));
  after(async () => {
    if ('engine' in found) run(found.engine, ['rmi', '-f', IMAGE]);
    await sandbox?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the recipe: multi-stage, an unprivileged user, a data volume, a health check on /livez', () => {
    assert.ok((dockerfile.match(/^FROM /gm) ?? []).length >= 2, 'multi-stage');
    assert.match(dockerfile, /^USER node$/m);
    assert.match(dockerfile, /^VOLUME \/data$/m);
    assert.match(dockerfile, /^HEALTHCHECK [\s\S]*\/livez/m);
    assert.doesNotMatch(dockerfile, /^ARG .*(SECRET|KEY|TOKEN)/im, 'no secret as a build argument');
  });

  it('builds, runs as non-root against the emulator, turns healthy and takes a checkout', async (t) => {
    const engine = needsEngine(t);
    if (!engine) return;
    const built = run(engine, ['build', '-t', IMAGE, '.'], 1_500_000);
    assert.equal(built.status, 0, built.stderr.slice(-4000));
    sandbox = await startSandbox({ settlementDelayMs: 0 });
    const port = await freePort();
    const env = { ...proxyEnvFor(sandbox, '/data/kassa.db'), PORT: String(port), HOST: '127.0.0.1' };
    const started = run(engine, [
      'run',
      '-d',
      '--network=host',
      '--health-interval=1s',
      ...Object.entries(env).flatMap(([name, value]) => ['-e', `${name}=${value}`]),
      IMAGE,
    ]);
    assert.equal(started.status, 0, started.stderr);
    const container = started.stdout.trim();
    try {
      const deadline = Date.now() + PATIENCE_MS;
      let health = '';
      while (health !== 'healthy' && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        health = run(engine, ['inspect', '--format', '{{.State.Health.Status}}', container]).stdout.trim();
      }
      assert.equal(health, 'healthy', run(engine, ['logs', container]).stdout.slice(-2000));
      assert.notEqual(run(engine, ['exec', container, 'id', '-u']).stdout.trim(), '0', 'not root');
      const created = await fetch(`http://127.0.0.1:${port}/api/checkouts`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${env.KASSA_MERCHANT_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ amount: '3.00', currencyCode: 'EUR', reference: 'CONTAINER-1' }),
      });
      assert.equal(created.status, 201);
    } finally {
      run(engine, ['rm', '-f', container]);
    }
  });
});
