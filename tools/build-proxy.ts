/**
 * `npm run build:proxy` (part of `npm run build`): the proxy as one file, `dist/proxy/server.js`,
 * that runs with plain `node dist/proxy/server.js`. Native modules (better-sqlite3) cannot be bundled:
 * they stay imports, resolved from a node_modules beside the bundle (docs/deploy.md).
 */
import { build } from 'esbuild';
import { mkdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

const root = join(import.meta.dirname, '..');
const outfile = join(root, 'dist', 'proxy', 'server.js');
const built = await build({
  entryPoints: [join(root, 'proxy', 'main.ts')],
  outfile,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  external: ['better-sqlite3'],
  // Some bundled packages are CommonJS and call require(); an ES module has none of its own.
  banner: {
    js: "import { createRequire as __kassaRequire } from 'node:module'; const require = __kassaRequire(import.meta.url);",
  },
  legalComments: 'linked',
  sourcemap: true,
  logLevel: 'warning',
  write: false,
});
// Each file replaced whole (written aside, then renamed): a reader at the same moment (`npm pack` in a
// suite beside the one rebuilding) sees the old file or the new one, never half of one.
for (const file of built.outputFiles) {
  mkdirSync(dirname(file.path), { recursive: true });
  writeFileSync(`${file.path}.partial`, file.contents);
  renameSync(`${file.path}.partial`, file.path);
}
console.log(`dist/proxy/server.js: ${(statSync(outfile).size / 1024).toFixed(0)} KB`);
