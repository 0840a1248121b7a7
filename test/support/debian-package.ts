import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

/**
 * A system program the tests need, from Debian's packages: found where Debian puts it or, when missing
 * and we are root, installed with apt-get. Never downloaded from anywhere else.
 */
export function ensureDebianPackage(binaries: readonly string[], packageName: string, override?: string): string {
  const configured = override ? process.env[override] : undefined;
  if (configured) {
    if (existsSync(configured)) return configured;
    fail(`${override} is set to ${configured}, which does not exist.`);
  }
  const found = binaries.find((path) => existsSync(path));
  if (found) return found;
  if (process.getuid?.() !== 0) {
    fail(
      `${packageName} is missing. Install it with: sudo apt-get update && sudo apt-get install -y ${packageName}${override ? ` (or set ${override})` : ''}.`,
    );
  }
  console.log(`${packageName} is missing: installing Debian's ${packageName} package (apt-get)…`);
  for (const args of [['update'], ['install', '-y', '--no-install-recommends', packageName]]) {
    const result = spawnSync('apt-get', args, {
      stdio: 'inherit',
      env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
    });
    if (result.status !== 0) fail(`apt-get ${args.join(' ')} failed; install ${packageName} by hand.`);
  }
  return (
    binaries.find((path) => existsSync(path)) ??
    fail(`apt-get installed ${packageName} but none of ${binaries.join(', ')} exists.`)
  );
}

function fail(message: string): never {
  console.error(message);
  process.exit(1);
}
