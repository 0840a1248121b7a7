/**
 * `npm test`: every test of every part. Finds (or, as root, installs) Chromium, type-checks, lints, builds
 * the widget when end-to-end journeys are to run (they load dist/widget/kassa.js) and the extension
 * when its suites are (they load dist/extension), the package when its suites are (they pack dist/), then runs the node
 * suites (sandbox, proxy, end-to-end journeys, extension) with node's test runner and the component
 * suites in real Chromium with @web/test-runner.
 *
 * `npm test -- <file> ...` runs just those files.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ensureChromium } from './support/chromium.ts';
import { ensurePostgres } from './support/postgres-server.ts';
import { ensureRedisServer } from './support/redis-server.ts';

const root = join(import.meta.dirname, '..');
/** The proxy suites that exercise its store; `npm test` runs them on SQLite, on Redis and on PostgreSQL. */
const STORE_SUITES = [
  'payments',
  'webhooks-sse',
  'resilience',
  'operator-bridge',
  'security',
  'fuzz',
  'events',
  'operations',
  'read-budget',
  'onramp',
  'onramp-mint',
  'onramp-operator-races',
  'onramp-attribution',
  'onramp-sweep',
];
const requested = process.argv.slice(2);

function run(step: string, command: string, args: string[], env: NodeJS.ProcessEnv = {}): void {
  const started = performance.now();
  console.log(`\n▶ ${step}`);
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit', env: { ...process.env, ...env } });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  if (result.status !== 0) {
    console.error(`✖ ${step} failed after ${seconds} s`);
    process.exit(result.status ?? 1);
  }
  console.log(`✔ ${step} (${seconds} s)`);
}

/**
 * Runs steps that share nothing side by side, each line of their output under the step's tag, and
 * stops when any failed (after all have ended, so that no server of theirs is left running).
 */
async function runSideBySide(
  steps: ReadonlyArray<{ tag: string; step: string; command: string; args: string[]; env: NodeJS.ProcessEnv }>,
): Promise<void> {
  const outcomes = await Promise.all(
    steps.map(
      ({ tag, step, command, args, env }) =>
        new Promise<{ step: string; status: number | null; seconds: string }>((resolve) => {
          const started = performance.now();
          console.log(`\n▶ ${step}`);
          const child = spawn(command, args, {
            cwd: root,
            stdio: ['ignore', 'pipe', 'pipe'],
            env: { ...process.env, ...env },
          });
          for (const stream of [child.stdout, child.stderr]) {
            let partial = '';
            stream.on('data', (chunk: Buffer) => {
              const lines = (partial + chunk.toString()).split('\n');
              partial = lines.pop()!;
              for (const line of lines) console.log(`[${tag}] ${line}`);
            });
            stream.on('end', () => partial && console.log(`[${tag}] ${partial}`));
          }
          child.on('close', (status) =>
            resolve({ step, status, seconds: ((performance.now() - started) / 1000).toFixed(1) }),
          );
        }),
    ),
  );
  for (const { step, status, seconds } of outcomes)
    console.log(status === 0 ? `✔ ${step} (${seconds} s)` : `✖ ${step} failed after ${seconds} s`);
  const failed = outcomes.find((outcome) => outcome.status !== 0);
  if (failed) process.exit(failed.status ?? 1);
}

function testFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .flatMap((name) => {
      const path = join(dir, name);
      return statSync(path).isDirectory() ? testFiles(path) : name.endsWith('.test.ts') ? [path] : [];
    })
    .sort();
}

const chromium = ensureChromium();
const redisServer = ensureRedisServer();
const postgresBin = ensurePostgres();
const bin = (name: string) => join(root, 'node_modules', '.bin', name);
const componentDir = join(root, 'test', 'components');
const e2eDir = join(root, 'test', 'e2e');
const extensionDir = join(root, 'test', 'extension');
const packageDir = join(root, 'test', 'package');
const all = testFiles(join(root, 'test'));
const selected = requested.length ? requested.map((file) => join(root, file)) : all;
const componentTests = selected.filter((file) => file.startsWith(componentDir + '/'));
const nodeTests = selected.filter((file) => !file.startsWith(componentDir + '/'));

if (!requested.length) {
  run('type-check', process.execPath, [join(root, 'node_modules', 'tsc7', 'bin', 'tsc'), '-b']);
  run('lint (ESLint)', bin('eslint'), ['--max-warnings', '0', '.']);
  run('format check (Prettier)', bin('prettier'), ['--check', '--log-level', 'warn', '.']);
  run('import circles (madge)', bin('madge'), ['--circular', '--no-spinner', '--no-color', '.']);
}
// The package suites pack dist/ (the widget included): built once here, before any suite reads it.
if (nodeTests.some((file) => file.startsWith(packageDir + '/'))) {
  run('build the package (npm run build:package)', bin('tsx'), [join(root, 'tools', 'build-package.ts')]);
  process.env.KASSA_PACKAGE_PREBUILT = '1';
  process.env.KASSA_WIDGET_PREBUILT = '1';
} else if (nodeTests.some((file) => file.startsWith(e2eDir + '/') || file.startsWith(extensionDir + '/'))) {
  run('build the widget (vite build)', bin('vite'), ['build', '--logLevel', 'warn']);
  // Suites side by side must not rebuild (and so empty) dist/widget under each other after an edit.
  process.env.KASSA_WIDGET_PREBUILT = '1';
}
// The extension suites load dist/extension unpacked into Chromium, and the package suites zip it: built
// once here, for all of them.
if (nodeTests.some((file) => file.startsWith(extensionDir + '/') || file.startsWith(packageDir + '/'))) {
  run('build the extension (npm run build:extension)', bin('vite'), [
    'build',
    '--config',
    'extension/vite.config.ts',
    '--logLevel',
    'warn',
  ]);
  // The suites, running side by side, must not rebuild it under each other (an edit during the run).
  process.env.KASSA_EXTENSION_PREBUILT = '1';
}
const testEnv = {
  KASSA_CHROMIUM: chromium,
  KASSA_REDIS_SERVER: redisServer,
  KASSA_POSTGRES_INITDB: join(postgresBin, 'initdb'),
};
const testArgs = (files: string[]) => [
  '--test',
  '--test-concurrency=3',
  '--test-reporter=spec',
  ...files.map((file) => relative(root, file)),
];
if (nodeTests.length) run(`node tests (${nodeTests.length} files)`, bin('tsx'), testArgs(nodeTests), testEnv);
// The proxy's suites once more with its state on Redis, and once more on PostgreSQL: every store must
// pass the same tests. The two passes share nothing (each starts its own servers), so they run side by side.
const storeSuites = nodeTests.filter((file) =>
  STORE_SUITES.some((name) => file.endsWith(`/test/proxy/${name}.test.ts`)),
);
if (storeSuites.length)
  await runSideBySide(
    (['redis', 'postgres'] as const).map((store) => ({
      tag: store,
      step: `proxy tests on ${store === 'redis' ? 'Redis' : 'PostgreSQL'} (${storeSuites.length} files)`,
      command: bin('tsx'),
      args: testArgs(storeSuites),
      env: { ...testEnv, KASSA_TEST_STORE: store },
    })),
  );
if (componentTests.length) {
  run(
    `component tests in Chromium (${componentTests.length} files)`,
    // Through tsx: the config and its stack plugin are TypeScript that imports the proxy and the sandbox.
    bin('tsx'),
    [
      join(root, 'node_modules', '@web', 'test-runner', 'dist', 'bin.js'),
      '--config',
      'test/components/web-test-runner.config.ts',
      ...componentTests.map((file) => relative(root, file)),
    ],
    { KASSA_CHROMIUM: chromium },
  );
}
console.log('\nAll tests passed.');
