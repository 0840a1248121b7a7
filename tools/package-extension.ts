/**
 * `npm run package:extension`: dist/kassa-extension-<version>.zip, to upload to the Chrome Web Store.
 * The extension is built as for development (`npm run build:extension`), then staged without the
 * manifest's `key`: the store assigns the published extension its own ID, and refuses packages that
 * carry a key. Everything else (permissions, icons, _locales/) is the build's own.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { zipFolder } from './zip.ts';

const root = join(import.meta.dirname, '..');
const built = join(root, 'dist', 'extension');
const staged = join(root, '.tmp', 'extension-package');

if (process.env.KASSA_EXTENSION_PREBUILT !== '1') {
  const result = spawnSync(
    join(root, 'node_modules', '.bin', 'vite'),
    ['build', '--config', 'extension/vite.config.ts', '--logLevel', 'warn'],
    { cwd: root, stdio: 'inherit' },
  );
  if (result.status !== 0) throw new Error('building the extension failed');
}
rmSync(staged, { recursive: true, force: true });
cpSync(built, staged, { recursive: true });
const manifest = JSON.parse(readFileSync(join(staged, 'manifest.json'), 'utf8')) as Record<string, unknown> & {
  version: string;
};
delete manifest.key;
writeFileSync(join(staged, 'manifest.json'), JSON.stringify(manifest, null, 2));

const out = join(root, 'dist', `kassa-extension-${manifest.version}.zip`);
mkdirSync(join(root, 'dist'), { recursive: true });
writeFileSync(out, zipFolder(staged));
rmSync(staged, { recursive: true, force: true });
console.log(`dist/kassa-extension-${manifest.version}.zip: ${(statSync(out).size / 1024).toFixed(0)} KB`);
