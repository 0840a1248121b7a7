/**
 * `npm run lock`: after `npm install`, records in package-lock.json the other platforms' optional
 * binaries (rollup's, anvil's, ...) that this registry mirror does not carry. npm leaves them out
 * of the lockfile when it cannot fetch them, and then its own `npm ci` refuses that lockfile. An
 * entry tagged with its os, cpu and libc is skipped on every other platform without a fetch.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

interface LockEntry {
  version?: string;
  dev?: boolean;
  optional?: boolean;
  os?: string[];
  cpu?: string[];
  libc?: string[];
  optionalDependencies?: Record<string, string>;
}

const OS = ['darwin', 'linux', 'win32', 'android', 'freebsd', 'openbsd', 'netbsd', 'openharmony', 'sunos', 'aix'];
const CPU: Record<string, string> = {
  x64: 'x64',
  amd64: 'x64',
  arm64: 'arm64',
  arm: 'arm',
  ia32: 'ia32',
  loong64: 'loong64',
  ppc64: 'ppc64',
  riscv64: 'riscv64',
  s390x: 's390x',
  mips64el: 'mips64el',
};

function platformOf(name: string): Pick<LockEntry, 'os' | 'cpu' | 'libc'> {
  const tokens = name.split('/').pop()!.split('-');
  const os = tokens.find((token) => OS.includes(token));
  const cpu = tokens.map((token) => CPU[token]).find(Boolean);
  if (!os || !cpu) throw new Error(`cannot tell the platform of ${name}; add it to tools/complete-lockfile.ts`);
  const libc =
    tokens.includes('musl') || tokens.includes('musleabihf')
      ? ['musl']
      : os === 'linux' && tokens.some((t) => t.startsWith('gnu'))
        ? ['glibc']
        : undefined;
  return { os: [os], cpu: [cpu], ...(libc ? { libc } : {}) };
}

const path = join(import.meta.dirname, '..', 'package-lock.json');
const lock = JSON.parse(readFileSync(path, 'utf8')) as { packages: Record<string, LockEntry> };
const resolves = (from: string, name: string): boolean => {
  // Node's resolution: the dependent's own node_modules, then each enclosing one.
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = dir === '.' || dir === '' ? `node_modules/${name}` : `${dir}/node_modules/${name}`;
    if (lock.packages[candidate]) return true;
    if (dir === '.' || dir === '' || dir === '/') return false;
  }
};

let added = 0;
for (const [location, entry] of Object.entries(lock.packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    if (resolves(location, name)) continue;
    // Beside the dependent, where npm would have put it.
    const home = location.slice(0, location.lastIndexOf('node_modules/') + 'node_modules/'.length) + name;
    lock.packages[home] = { version, ...(entry.dev ? { dev: true } : {}), optional: true, ...platformOf(name) };
    added++;
  }
}
writeFileSync(path, JSON.stringify(lock, null, 2) + '\n');
console.log(`package-lock.json: recorded ${added} optional platform packages this registry does not carry`);
