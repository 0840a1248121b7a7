/**
 * `npm run build:package` (and `npm pack`, through `prepack`): everything the `kassa` package's entry
 * points run, under dist/:
 * - widget/: kassa.js and its chunks (`vite build`), the browser's `kassa/widget`;
 * - ssr/kassa.js: what `kassa/widget` is on a server (the `node` condition): same names, no DOM access;
 * - proxy/server.js: the proxy bundle (tools/build-proxy.ts), run by the `kassa-proxy` bin;
 * - server/ and sandbox/: `kassa/server` and `kassa/sandbox` as ES modules for Node, their packages
 *   left as imports (they are the package's dependencies);
 * - types/: declarations of the three entries; custom-elements.json: the elements' manifest.
 */
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONTRACTS } from '../sandbox/contracts/compile.ts';

const root = join(import.meta.dirname, '..');
const dist = join(root, 'dist');
const bin = (name: string) => join(root, 'node_modules', '.bin', name);

function step(what: string, command: string, args: string[]): void {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) throw new Error(`${what} failed`);
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

step('the widget', bin('vite'), ['build', '--logLevel', 'warn']);
step('the proxy bundle', process.execPath, ['--import', 'tsx', join(root, 'tools', 'build-proxy.ts')]);

for (const dir of ['server', 'sandbox', 'types', 'ssr']) rmSync(join(dist, dir), { recursive: true, force: true });
const nodeBundle = {
  outdir: dist,
  bundle: true,
  // The package's dependencies stay imports: one copy of zod, ethers, hono… in the merchant's project.
  packages: 'external',
  platform: 'node',
  target: 'node20',
  format: 'esm',
  logLevel: 'warning',
} as const;
await build({
  ...nodeBundle,
  entryPoints: { 'server/index': join(root, 'server', 'index.ts'), 'sandbox/index': join(root, 'sandbox', 'index.ts') },
});
await build({
  ...nodeBundle,
  entryPoints: { 'sandbox/cli': join(root, 'sandbox', 'cli.ts') },
  // The command line runs the same module as `kassa/sandbox`, not a second copy of the emulator.
  plugins: [
    {
      name: 'sandbox-entry',
      setup(context) {
        context.onResolve({ filter: /^\.\/server\.ts$/ }, () => ({ path: './index.js', external: true }));
      },
    },
  ],
});
// The emulator reads its compiled contracts beside its code (sandbox/contracts/compile.ts).
for (const name of CONTRACTS)
  copyFileSync(join(root, 'sandbox', 'contracts', `${name}.json`), join(dist, 'sandbox', `${name}.json`));

mkdirSync(join(dist, 'ssr'), { recursive: true });
writeFileSync(
  join(dist, 'ssr', 'kassa.js'),
  `// kassa/widget on a server: the elements are browser code; here the names exist and nothing runs.
const browserOnly = (name) =>
  class {
    constructor() {
      throw new Error(\`<\${name}> runs in the browser; import kassa/widget there\`);
    }
  };
export const KassaCheckout = browserOnly('kassa-checkout');
`,
);

step('the declarations', process.execPath, [
  join(root, 'node_modules', 'typescript', 'bin', 'tsc'),
  '-p',
  'tsconfig.package.json',
]);
// Sources import each other as .ts; their declarations sit beside the .js that a consumer resolves.
for (const file of filesUnder(join(dist, 'types')).filter((path) => path.endsWith('.d.ts'))) {
  const text = readFileSync(file, 'utf8');
  writeFileSync(file, text.replace(/(from\s+|import\()(['"])(\.{1,2}\/[^'"]+)\.ts\2/g, '$1$2$3.js$2'));
}

step('the custom elements manifest', bin('cem'), [
  'analyze',
  '--litelement',
  '--globs',
  'widget/kassa-checkout.ts',
  'widget/kassa-bridge.ts',
  'widget/kassa-onramp.ts',
  // The checkout's properties are declared by the class it extends.
  'widget/checkout/checkout-flow.ts',
  '--outdir',
  'dist',
  '--quiet',
]);
// The elements come from one module a merchant imports, `kassa/widget`; the analyser names the sources.
const manifestPath = join(dist, 'custom-elements.json');
const manifest = JSON.parse(readFileSync(manifestPath, 'utf8')) as {
  modules: Array<{ path: string; declarations?: unknown[]; exports?: unknown[] }>;
};
manifest.modules = [
  {
    ...manifest.modules[0]!,
    path: 'dist/widget/kassa.js',
    declarations: manifest.modules.flatMap((module) => module.declarations ?? []),
    exports: manifest.modules.flatMap((module) => module.exports ?? []),
  },
];
writeFileSync(
  manifestPath,
  `${JSON.stringify(manifest, null, 2).replaceAll(/"widget\/kassa-(checkout|bridge|onramp)\.ts"/g, '"dist/widget/kassa.js"')}\n`,
);
console.log('dist/: widget, ssr, proxy, server, sandbox, types and custom-elements.json');
