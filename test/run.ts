/**
 * `npm test`: every test of every part. Finds (or, as root, installs) Chromium, type-checks, then runs
 * the node suites (sandbox, proxy, end-to-end journeys, extension) with node's test runner and the
 * component suites in real Chromium with @web/test-runner.
 *
 * `npm test -- <file> ...` runs just those files.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ensureChromium } from './support/chromium.ts';

const root = join(import.meta.dirname, '..');
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
const bin = (name: string) => join(root, 'node_modules', '.bin', name);
const componentDir = join(root, 'test', 'components');
const all = testFiles(join(root, 'test'));
const selected = requested.length ? requested.map((file) => join(root, file)) : all;
const componentTests = selected.filter((file) => file.startsWith(componentDir + '/'));
const nodeTests = selected.filter((file) => !file.startsWith(componentDir + '/'));

if (!requested.length) run('type-check', bin('tsc'), ['-p', 'tsconfig.json', '--noEmit']);
if (nodeTests.length) {
  run(
    `node tests (${nodeTests.length} files)`,
    bin('tsx'),
    ['--test', '--test-concurrency=3', '--test-reporter=spec', ...nodeTests.map((file) => relative(root, file))],
    { KASSA_CHROMIUM: chromium },
  );
}
if (componentTests.length) {
  run(
    `component tests in Chromium (${componentTests.length} files)`,
    bin('wtr'),
    ['--config', 'test/components/web-test-runner.config.ts', ...componentTests.map((file) => relative(root, file))],
    { KASSA_CHROMIUM: chromium },
  );
}
console.log('\nAll tests passed.');
