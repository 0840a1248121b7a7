/**
 * The peers are installed into bench/peers/.work/<peer>/ (git-ignored), each from a package.json
 * written here, with npm's own client: never into the project's dependencies or its lockfile.
 * One folder per peer, so one that fails to install does not take the others with it.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const WORK_DIR = join(import.meta.dirname, '.work');

export interface Installed {
  dir: string;
  seconds: number;
}

/** The lines npm explains a failure with, on one line: its `npm error` lines, less the log file's. */
export function npmFailure(output: string): string {
  const missing = /404 Not Found - GET \S+\/((?:@|%40)?[^\s/]+)/.exec(output);
  if (/code E404/.test(output) && missing)
    return `the npm registry has no package ${decodeURIComponent(missing[1]!)} (E404)`;
  const lines = output
    .split('\n')
    .filter((line) => /^npm (error|ERR!)/.test(line) && !/complete log|A complete log/.test(line))
    .map((line) => line.replace(/^npm (error|ERR!)\s*/, '').trim())
    .filter(Boolean);
  return lines.slice(0, 3).join(' / ') || output.trim().split('\n').slice(-3).join(' / ');
}

/**
 * `npm install --prefix .work/<peer>` of exactly these packages. Install scripts run only when asked
 * (a package whose script fetches a binary needs them; the others do not).
 */
export async function installPeer(
  peer: string,
  dependencies: Record<string, string>,
  options: { scripts?: boolean } = {},
): Promise<Installed> {
  const dir = join(WORK_DIR, peer);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'package.json'),
    `${JSON.stringify({ name: `kassa-bench-${peer}`, private: true, type: 'module', dependencies }, null, 2)}\n`,
  );
  const started = performance.now();
  const args = ['install', '--prefix', dir, '--no-audit', '--no-fund', '--loglevel', 'error'];
  if (!options.scripts) args.push('--ignore-scripts');
  const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    const child = spawn('npm', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
  if (code !== 0) throw new Error(`npm install failed: ${npmFailure(output)}`);
  return { dir, seconds: (performance.now() - started) / 1000 };
}
