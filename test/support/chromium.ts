import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser'];

/**
 * The Chromium every browser test drives: `KASSA_CHROMIUM`, else Debian's `/usr/bin/chromium`. When it
 * is missing and we are root, installs Debian's `chromium` package; never downloads a browser itself.
 */
export function ensureChromium(): string {
  const configured = process.env.KASSA_CHROMIUM;
  if (configured) {
    if (existsSync(configured)) return configured;
    fail(`KASSA_CHROMIUM is set to ${configured}, which does not exist.`);
  }
  const found = CANDIDATES.find((path) => existsSync(path));
  if (found) return found;
  if (process.getuid?.() !== 0) {
    fail('Chromium is missing. Install it with: sudo apt-get update && sudo apt-get install -y chromium (or set KASSA_CHROMIUM to a Chromium binary).');
  }
  console.log('Chromium is missing: installing Debian\'s chromium package (apt-get)…');
  for (const args of [['update'], ['install', '-y', '--no-install-recommends', 'chromium']]) {
    const result = spawnSync('apt-get', args, { stdio: 'inherit', env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } });
    if (result.status !== 0) fail(`apt-get ${args.join(' ')} failed; install Chromium by hand or set KASSA_CHROMIUM.`);
  }
  if (existsSync('/usr/bin/chromium')) return '/usr/bin/chromium';
  return fail('apt-get installed chromium but /usr/bin/chromium is still missing.');
}

function fail(message: string): never {
  console.error(message);
  process.exit(1);
}
