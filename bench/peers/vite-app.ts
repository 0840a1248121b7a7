/**
 * A peer built the way a merchant's site would build it: a minimal app (index.html and one entry
 * module, written here) in the peer's work folder, bundled for production by the project's Vite.
 */
import { mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'vite';

export interface BuiltApp {
  /** The built site: index.html and assets/. */
  dir: string;
  js: string[];
  css: string[];
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** Writes `files` into `<peerDir>/app/` and builds them into `<peerDir>/dist/` (relative base, minified). */
export async function buildApp(peerDir: string, files: Record<string, string>): Promise<BuiltApp> {
  const root = join(peerDir, 'app');
  const outDir = join(peerDir, 'dist');
  rmSync(root, { recursive: true, force: true });
  mkdirSync(root, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(root, name), text);
  await build({
    root,
    base: './',
    configFile: false,
    logLevel: 'error',
    define: { 'process.env.NODE_ENV': '"production"' },
    build: { outDir, emptyOutDir: true, reportCompressedSize: false, chunkSizeWarningLimit: Infinity },
  });
  const built = filesUnder(outDir);
  return {
    dir: outDir,
    js: built.filter((path) => path.endsWith('.js')),
    css: built.filter((path) => path.endsWith('.css')),
  };
}
