/**
 * `npm test`: every test of every part. Finds (or, as root, installs) Chromium, Redis and PostgreSQL,
 * type-checks, lints, builds the widget when end-to-end journeys are to run (they load
 * dist/widget/kassa.js) and the extension when its suites are (they load dist/extension), the package
 * when its suites are (they pack dist/), then runs the node suites (sandbox, proxy, end-to-end
 * journeys, extension) with node's test runner, the proxy's store suites again on Redis and on
 * PostgreSQL, and the component suites in real Chromium with @web/test-runner.
 *
 * Every step runs whatever another one did: a failing suite hides none of the others, and a build that
 * fails skips only the suites that load what it builds. The end is a summary of every step, the suites
 * with their counts and what failed; the exit code is 1 when anything failed.
 *
 * `npm test -- <file> ...` runs just those files (no type-check or lint).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import type { ComponentCounts } from './components/count-reporter.ts';
import { ensureChromium } from './support/chromium.ts';
import { FILE_TIMEOUT_MS } from './support/patience.ts';
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
  'operators',
  'operators-fuzz',
  'dual-control',
  'audit',
  'roles',
  'signin',
  'signin-fuzz',
  'merchant-keys',
  'event-destinations',
  'link-uses',
  'links',
  'links-fuzz',
];
const requested = process.argv.slice(2);
const started = performance.now();

interface Counts {
  passed: number;
  failed: number;
  skipped: number;
}

/** One line of the summary: a check, a build or a suite, how it went, and what failed in it. */
interface Outcome {
  step: string;
  state: 'passed' | 'failed' | 'skipped';
  seconds?: number;
  counts?: Counts;
  /** Why it was skipped, or why it has no counts. */
  note?: string;
  failures?: string[];
}
const outcomes: Outcome[] = [];

interface Step {
  step: string;
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  /** Reads the step's counts (and failures) once it has ended; undefined when there are none to read. */
  counts?: () => (Counts & { failures: string[] }) | undefined;
}

/**
 * Runs steps that share nothing (no port, no file) side by side; one step alone writes straight to
 * this terminal, several write each line under the step's tag. Every step runs to its end.
 */
async function runSteps(steps: Array<Step & { tag?: string }>): Promise<Outcome[]> {
  const ran = await Promise.all(
    steps.map(
      ({ tag, step, command, args, env = {}, counts }) =>
        new Promise<Outcome>((resolve) => {
          const begun = performance.now();
          console.log(`\n▶ ${step}`);
          const tagged = steps.length > 1;
          const child = spawn(command, args, {
            cwd: root,
            stdio: tagged ? ['ignore', 'pipe', 'pipe'] : 'inherit',
            env: { ...process.env, ...env },
          });
          if (tagged)
            for (const stream of [child.stdout!, child.stderr!]) {
              let partial = '';
              stream.on('data', (chunk: Buffer) => {
                const lines = (partial + chunk.toString()).split('\n');
                partial = lines.pop()!;
                for (const line of lines) console.log(`[${tag}] ${line}`);
              });
              stream.on('end', () => partial && console.log(`[${tag}] ${partial}`));
            }
          const finish = (status: number | null, error?: Error) => {
            const seconds = (performance.now() - begun) / 1000;
            const read = status === null && error ? undefined : counts?.();
            const failed = status !== 0 || (read?.failed ?? 0) > 0;
            console.log(`${failed ? '✖' : '✔'} ${step} (${seconds.toFixed(1)} s)`);
            resolve({
              step,
              state: failed ? 'failed' : 'passed',
              seconds,
              ...(read ? { counts: read, failures: read.failures } : {}),
              ...(error
                ? { note: error.message }
                : counts && !read
                  ? { note: 'no counts: the runner ended early' }
                  : {}),
            });
          };
          child.once('error', (error) => finish(null, error));
          child.once('close', (status) => finish(status));
        }),
    ),
  );
  outcomes.push(...ran);
  return ran;
}

const runStep = async (step: Step) => (await runSteps([step]))[0]!;

function skip(step: string, note: string): void {
  console.log(`\n– ${step}: skipped, ${note}`);
  outcomes.push({ step, state: 'skipped', note });
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

/**
 * The counts of a node test run, from its TAP report (`# pass 12`, …), and each failed test (not a
 * suite) by where it is and its name. Cancelled tests (a hook failed, the runner's timeout) failed.
 */
function tapCounts(tap: string): Counts & { failures: string[] } {
  const total = (name: string) => Number(new RegExp(`^# ${name} (\\d+)$`, 'm').exec(tap)?.[1] ?? NaN);
  const failures: string[] = [];
  const lines = tap.split('\n');
  lines.forEach((line, index) => {
    const failed = /^\s*not ok \d+ - (.*)$/.exec(line);
    if (!failed) return;
    const details: string[] = [];
    for (let next = index + 1; next < lines.length && !/^\s*(not )?ok \d+ /.test(lines[next]!); next++)
      details.push(lines[next]!);
    if (details.some((detail) => /^\s*type: 'suite'$/.test(detail))) return;
    const location = details.map((detail) => /^\s*location: '(.*)'$/.exec(detail)?.[1]).find(Boolean);
    failures.push(`${location ? `${relative(root, location)}: ` : ''}${failed[1]}`);
  });
  const counts = {
    passed: total('pass'),
    failed: total('fail') + total('cancelled'),
    skipped: total('skipped') + total('todo'),
    failures,
  };
  if (Object.values(counts).some((value) => typeof value === 'number' && Number.isNaN(value)))
    throw new Error('no totals in the report');
  return counts;
}

const readCounts =
  <T>(file: string, parse: (text: string) => T) =>
  () => {
    try {
      return parse(readFileSync(file, 'utf8'));
    } catch {
      return undefined;
    }
  };

const [chromium, redisServer, postgresBin] = [ensureChromium(), ensureRedisServer(), ensurePostgres()];
const bin = (name: string) => join(root, 'node_modules', '.bin', name);
const reports = mkdtempSync(join(tmpdir(), 'kassa-test-reports-'));
const componentDir = join(root, 'test', 'components');
const e2eDir = join(root, 'test', 'e2e');
const extensionDir = join(root, 'test', 'extension');
const packageDir = join(root, 'test', 'package');
const inside = (dir: string) => (file: string) => file.startsWith(dir + '/');
const all = testFiles(join(root, 'test'));
const selected = requested.length ? requested.map((file) => join(root, file)) : all;
const componentTests = selected.filter(inside(componentDir));
let nodeTests = selected.filter((file) => !inside(componentDir)(file));

// The checks read the sources and write nothing: side by side.
if (!requested.length)
  await runSteps([
    {
      tag: 'types',
      step: 'type-check',
      command: process.execPath,
      args: [join(root, 'node_modules', 'tsc7', 'bin', 'tsc'), '-b'],
    },
    { tag: 'eslint', step: 'lint (ESLint)', command: bin('eslint'), args: ['--max-warnings', '0', '.'] },
    {
      tag: 'prettier',
      step: 'format check (Prettier)',
      command: bin('prettier'),
      args: ['--check', '--log-level', 'warn', '.'],
    },
    {
      tag: 'madge',
      step: 'import circles (madge)',
      command: bin('madge'),
      args: ['--circular', '--no-spinner', '--no-color', '.'],
    },
  ]);

/** Takes out the suites that load what a build that failed was to make, and says so in the summary. */
function withoutSuitesOf(dir: string, what: string, build: string): void {
  const lost = nodeTests.filter(inside(dir));
  if (!lost.length) return;
  nodeTests = nodeTests.filter((file) => !inside(dir)(file));
  skip(`${what} (${lost.length} files)`, `${build} failed`);
}

const viteBuild = (config: string[] = []) => ({
  command: bin('vite'),
  args: ['build', ...config, '--logLevel', 'warn'],
});
const needsWidget = nodeTests.some((file) => inside(e2eDir)(file) || inside(extensionDir)(file));
const needsPackage = nodeTests.some(inside(packageDir));
// The package suites pack dist/ (the widget included): built once here, before any suite reads it.
let widgetBuilt = false;
if (needsPackage) {
  const built = await runStep({
    step: 'build the package (npm run build:package)',
    command: bin('tsx'),
    args: [join(root, 'tools', 'build-package.ts')],
  });
  if (built.state === 'passed') {
    process.env.KASSA_PACKAGE_PREBUILT = '1';
    widgetBuilt = true;
  } else withoutSuitesOf(packageDir, 'package tests', 'the package build');
}
if (needsWidget && !widgetBuilt)
  widgetBuilt = (await runStep({ step: 'build the widget (vite build)', ...viteBuild() })).state === 'passed';
if (widgetBuilt)
  // Suites side by side must not rebuild (and so empty) dist/widget under each other after an edit.
  process.env.KASSA_WIDGET_PREBUILT = '1';
else if (needsWidget) {
  withoutSuitesOf(e2eDir, 'end-to-end tests', 'the widget build');
  withoutSuitesOf(extensionDir, 'extension tests', 'the widget build');
}
// The extension suites load dist/extension unpacked into Chromium, and the package suites zip it: built
// once here, for all of them.
if (nodeTests.some((file) => inside(extensionDir)(file) || inside(packageDir)(file))) {
  const built = await runStep({
    step: 'build the extension (npm run build:extension)',
    ...viteBuild(['--config', 'extension/vite.config.ts']),
  });
  // The suites, running side by side, must not rebuild it under each other (an edit during the run).
  if (built.state === 'passed') process.env.KASSA_EXTENSION_PREBUILT = '1';
  else {
    withoutSuitesOf(extensionDir, 'extension tests', 'the extension build');
    withoutSuitesOf(packageDir, 'package tests', 'the extension build');
  }
}

const testEnv = {
  KASSA_CHROMIUM: chromium,
  KASSA_REDIS_SERVER: redisServer,
  KASSA_POSTGRES_INITDB: join(postgresBin, 'initdb'),
};
/** Node's test runner on `files`: the spec report here, a TAP report in a file for the counts. */
const nodeRun = (step: string, files: string[], report: string, env: NodeJS.ProcessEnv = {}): Step => ({
  step,
  command: bin('tsx'),
  args: [
    '--test',
    '--test-concurrency=3',
    // Node 20 applies it to each file as a whole: only a hang meets it (a wait or a request gives up
    // after PATIENCE_MS, naming what never came), so it sits far above any file's run.
    `--test-timeout=${FILE_TIMEOUT_MS}`,
    '--test-reporter=spec',
    '--test-reporter-destination=stdout',
    '--test-reporter=tap',
    `--test-reporter-destination=${join(reports, report)}`,
    ...files.map((file) => relative(root, file)),
  ],
  env: { ...testEnv, ...env },
  counts: readCounts(join(reports, report), tapCounts),
});
if (nodeTests.length) await runStep(nodeRun(`node tests (${nodeTests.length} files)`, nodeTests, 'node.tap'));

// The proxy's suites once more with its state on Redis, and once more on PostgreSQL: every store must
// pass the same tests. The two passes and the component tests share nothing (each starts its own
// servers on ports of their own), so the three run side by side: the store passes spend much of their
// time waiting (on back-offs, on their databases), which Chromium fills.
const storeSuites = nodeTests.filter((file) =>
  STORE_SUITES.some((name) => file.endsWith(`/test/proxy/${name}.test.ts`)),
);
const storePasses: Array<Step & { tag: string }> = (['redis', 'postgres'] as const)
  .filter(() => storeSuites.length)
  .map((store) => ({
    tag: store,
    ...nodeRun(
      `proxy tests on ${store === 'redis' ? 'Redis' : 'PostgreSQL'} (${storeSuites.length} files)`,
      storeSuites,
      `${store}.tap`,
      { KASSA_TEST_STORE: store },
    ),
  }));
const componentReport = join(reports, 'components.json');
const componentPass: Array<Step & { tag: string }> = componentTests.length
  ? [
      {
        tag: 'chromium',
        step: `component tests in Chromium (${componentTests.length} files)`,
        // Through tsx: the config and its stack plugin are TypeScript that imports the proxy and the sandbox.
        command: bin('tsx'),
        args: [
          join(root, 'node_modules', '@web', 'test-runner', 'dist', 'bin.js'),
          '--config',
          'test/components/web-test-runner.config.ts',
          ...componentTests.map((file) => relative(root, file)),
        ],
        env: { KASSA_CHROMIUM: chromium, KASSA_TEST_COUNTS: componentReport },
        counts: readCounts(componentReport, (text) => JSON.parse(text) as ComponentCounts),
      },
    ]
  : [];
if (storePasses.length || componentPass.length) await runSteps([...storePasses, ...componentPass]);
rmSync(reports, { recursive: true, force: true });

const minutes = (performance.now() - started) / 60_000;
const width = Math.max(...outcomes.map(({ step }) => step.length));
console.log(`\nSummary (${Math.floor(minutes)} min ${Math.round((minutes % 1) * 60)} s):`);
for (const { step, state, seconds, counts, note, failures = [] } of outcomes) {
  const mark = { passed: '✔', failed: '✖', skipped: '–' }[state];
  const tally = counts ? `${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped` : state;
  const time = seconds === undefined ? '' : `  ${seconds.toFixed(0)} s`;
  console.log(`  ${mark} ${step.padEnd(width)}  ${tally}${time}${note ? ` (${note})` : ''}`);
  for (const failure of failures) console.log(`      ✖ ${failure}`);
}
const failed = outcomes.some(({ state }) => state === 'failed');
console.log(failed ? '\nNot all tests passed.' : '\nAll tests passed.');
process.exit(failed ? 1 : 0);
