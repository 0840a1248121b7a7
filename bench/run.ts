/**
 * `npm run bench`: runs every benchmark module in bench/ (each that default-exports an async function
 * that prints its own figures), one after another so they do not disturb each other's timings, each
 * in a process of its own, so that none inherits another's heap, timers or open handles.
 * `tsx bench/run.ts <module>` runs one of them in this process.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

type BenchModule = { default?: () => Promise<void> };

const only = process.argv[2];
if (only) {
  const bench = (await import(pathToFileURL(join(import.meta.dirname, only)).href)) as BenchModule;
  await bench.default?.();
  // A benchmark's servers are closed; a lingering handle (a pooled socket) must not hold the run.
  process.exit(0);
}

const modules = readdirSync(import.meta.dirname)
  .filter((name) => name.endsWith('.ts') && name !== 'run.ts')
  .sort();
let failed = 0;
for (const name of modules) {
  const source = (await import(pathToFileURL(join(import.meta.dirname, name)).href)) as BenchModule;
  // Helpers such as stats.ts export no benchmark.
  if (typeof source.default !== 'function') continue;
  const started = performance.now();
  console.log(`\n▶ bench/${name}`);
  // The same node and loader flags (tsx's) as this process.
  const run = spawnSync(process.execPath, [...process.execArgv, import.meta.filename, name], { stdio: 'inherit' });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  if (run.status === 0) console.log(`✔ bench/${name} (${seconds} s)`);
  else {
    failed++;
    console.log(`✖ bench/${name} failed (${run.status ?? run.signal}) after ${seconds} s`);
  }
}
process.exitCode = failed ? 1 : 0;
