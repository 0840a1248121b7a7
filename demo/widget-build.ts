import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';

const root = join(import.meta.dirname, '..');
export const WIDGET_BUNDLE = join(root, 'dist', 'widget', 'kassa.js');
/** Where kassa.js's chunks are built. */
export const WIDGET_CHUNKS = join(root, 'dist', 'widget', 'kassa');

/** A file's size gzipped at level 9, as the proxy would send it compressed. */
export const gzippedSize = (path: string) => gzipSync(readFileSync(path), { level: 9 }).length;

/**
 * A chunk of dist/widget/kassa/ and the chunks it imports statically (kassa.js aside): what a page
 * downloads at once when it first uses the element. Chunks it imports on first use are not included.
 */
export function chunkWithImports(file: string, found = new Set<string>()): Set<string> {
  if (found.has(file)) return found;
  found.add(file);
  const text = readFileSync(join(WIDGET_CHUNKS, file), 'utf8');
  for (const [, shared] of text.matchAll(/from\s*"\.\/([\w.-]+\.js)"/g)) chunkWithImports(shared!, found);
  return found;
}

function newestChange(path: string): number {
  const info = statSync(path);
  if (!info.isDirectory()) return info.mtimeMs;
  return Math.max(info.mtimeMs, ...readdirSync(path).map((name) => newestChange(join(path, name))));
}

/** Whether dist/widget/kassa.js is missing or older than the widget's sources or build settings. */
export function widgetIsStale(): boolean {
  if (!existsSync(WIDGET_BUNDLE)) return true;
  const built = statSync(WIDGET_BUNDLE).mtimeMs;
  return ['widget', 'vite.config.ts', 'package-lock.json'].some((path) => newestChange(join(root, path)) > built);
}

/** Runs `npm run build` (vite) when the bundle is missing or stale, unless `npm test` built it already; true when it built. */
export function ensureWidgetBuilt(): boolean {
  if (process.env.KASSA_WIDGET_PREBUILT === '1' && existsSync(WIDGET_BUNDLE)) return false;
  if (!widgetIsStale()) return false;
  const result = spawnSync(join(root, 'node_modules', '.bin', 'vite'), ['build', '--logLevel', 'warn'], {
    cwd: root,
    stdio: 'inherit',
  });
  if (result.status !== 0) throw new Error('building the widget failed (npm run build)');
  return true;
}

export const EXTENSION_DIR = join(root, 'dist', 'extension');

/** Whether dist/extension/ is missing or older than the extension's sources (and the widget code it shows). */
export function extensionIsStale(): boolean {
  const manifest = join(EXTENSION_DIR, 'manifest.json');
  if (!existsSync(manifest)) return true;
  const built = statSync(manifest).mtimeMs;
  return ['extension', 'widget', 'lib', 'package-lock.json'].some((path) => newestChange(join(root, path)) > built);
}

/** Runs `npm run build:extension` when dist/extension/ is missing or stale; true when it built. */
export function ensureExtensionBuilt(): boolean {
  if (!extensionIsStale()) return false;
  const result = spawnSync(
    join(root, 'node_modules', '.bin', 'vite'),
    ['build', '--config', join(root, 'extension', 'vite.config.ts'), '--logLevel', 'warn'],
    { cwd: root, stdio: 'inherit' },
  );
  if (result.status !== 0) throw new Error('building the extension failed (npm run build:extension)');
  return true;
}
