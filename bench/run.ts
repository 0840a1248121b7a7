/**
 * `npm run bench`: runs every benchmark module in bench/ (each that default-exports an async function
 * that prints its own figures), one after another so they do not disturb each other's timings.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const modules = readdirSync(import.meta.dirname)
  .filter((name) => name.endsWith('.ts') && name !== 'run.ts')
  .sort();

for (const name of modules) {
  const bench = (await import(pathToFileURL(join(import.meta.dirname, name)).href)) as {
    default?: () => Promise<void>;
  };
  // Helpers such as stats.ts export no benchmark.
  if (typeof bench.default !== 'function') continue;
  const started = performance.now();
  console.log(`\n▶ bench/${name}`);
  await bench.default();
  console.log(`✔ bench/${name} (${((performance.now() - started) / 1000).toFixed(1)} s)`);
}
