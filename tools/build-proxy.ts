/**
 * `npm run build:proxy` (part of `npm run build`): the proxy as one file, `dist/proxy/server.js`,
 * that runs with plain `node dist/proxy/server.js`. Native modules (better-sqlite3) cannot be bundled:
 * they stay imports, resolved from a node_modules beside the bundle (docs/deploy.md).
 */
import { build } from 'esbuild';
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { VIEWER_FILE, viewerScript } from '../proxy/http/openapi/api-docs-routes.ts';
import { LINK_PAGE_SCRIPT } from '../proxy/links/link-page-assets.ts';
import { OPERATOR_PAGE_SCRIPT } from '../proxy/operator/signin/page-assets.ts';

const root = join(import.meta.dirname, '..');
const outfile = join(root, 'dist', 'proxy', 'server.js');
const built = await build({
  entryPoints: [join(root, 'proxy', 'main.ts')],
  outfile,
  bundle: true,
  platform: 'node',
  target: 'node20',
  format: 'esm',
  // esbuild builds the operators' page's script when the proxy runs from source; the bundle has it built.
  external: ['better-sqlite3', 'esbuild'],
  // Some bundled packages are CommonJS and call require(); an ES module has none of its own.
  banner: {
    js: "import { createRequire as __kassaRequire } from 'node:module'; const require = __kassaRequire(import.meta.url);",
  },
  legalComments: 'linked',
  sourcemap: true,
  logLevel: 'warning',
  write: false,
});
// The reference page's viewer (KASSA_API_DOCS=1), vendored from its npm package, gzipped as it is served.
const viewer = viewerScript();
if (!viewer) throw new Error('The Redoc viewer is missing from node_modules/@redocly/cli: run npm ci');
const viewerBytes = readFileSync(viewer.path);
// The scripts of the proxy's own pages: the operators' (operator-page/, with @simplewebauthn/browser)
// and a payment link's (link-page/).
const pageScripts = await Promise.all(
  [OPERATOR_PAGE_SCRIPT, LINK_PAGE_SCRIPT].map((script) =>
    build({ ...script.build, outfile: join(dirname(outfile), script.file), write: false }),
  ),
);
const files = [
  ...[built, ...pageScripts].flatMap((output) =>
    output.outputFiles.map((file) => ({ path: file.path, contents: file.contents })),
  ),
  {
    path: join(dirname(outfile), `${VIEWER_FILE}.gz`),
    contents: viewer.gzipped ? viewerBytes : gzipSync(viewerBytes, { level: 9 }),
  },
];
// Each file replaced whole (written aside, then renamed): a reader at the same moment (`npm pack` in a
// suite beside the one rebuilding) sees the old file or the new one, never half of one.
for (const file of files) {
  mkdirSync(dirname(file.path), { recursive: true });
  writeFileSync(`${file.path}.partial`, file.contents);
  renameSync(`${file.path}.partial`, file.path);
}
console.log(`dist/proxy/server.js: ${(statSync(outfile).size / 1024).toFixed(0)} KB`);
