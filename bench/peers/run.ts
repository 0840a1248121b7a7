/**
 * `npm run bench:peers`: Kassa against what a merchant would pick instead, side by side in one run.
 * Each peer is installed into bench/peers/.work/ (not the project's dependencies). A peer that
 * cannot be installed, built or run here is reported with the reason and the others go on; the
 * command fails only when one of Kassa's own measurements does.
 */
import { emulatorStart } from './emulator.ts';
import { Report } from './report.ts';
import { scriptTagCost } from './script-tag.ts';
import { walletPanel } from './wallet-panel.ts';

const SECTIONS = [
  ['checkout script-tag cost', scriptTagCost],
  ['wallet panel', walletPanel],
  ['emulator cold start', emulatorStart],
] as const;

const report = new Report();
const started = performance.now();
let failed = false;
for (const [name, section] of SECTIONS) {
  const sectionStarted = performance.now();
  console.log(`\n▶ ${name}`);
  try {
    await section(report);
    console.log(`✔ ${name} (${((performance.now() - sectionStarted) / 1000).toFixed(1)} s)`);
  } catch (error) {
    failed = true;
    console.error(`✖ ${name}: Kassa's own measurement failed`, error);
  }
}
console.log(`\nKassa against its peers (${((performance.now() - started) / 1000).toFixed(0)} s, installs included):`);
for (const line of report.comparisons) console.log(`  ${line}`);
process.exitCode = failed ? 1 : 0;
