/**
 * A merchant's project outside this repository: an empty folder where the packed tarball is
 * installed from its file, with Vite, React 19 and TypeScript from the registry, and the pages and
 * scripts a merchant would write. Nothing in it reaches this repository's sources or node_modules.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { FILE_TIMEOUT_MS, PATIENCE_MS, TEST_TIMEOUT_MS } from '../../support/patience.ts';

const root = join(import.meta.dirname, '..', '..', '..');
/** The versions this repository tests with, so the outside project builds with the same tools. */
const version = (name: string) =>
  (JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')) as { version: string }).version;

/** Builds the package when test/run.ts has not (running this file by hand), then packs it into `dir`. */
export function packTarball(dir: string): string {
  if (process.env.KASSA_PACKAGE_PREBUILT !== '1') {
    const built = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'tools', 'build-package.ts')], {
      cwd: root,
      stdio: 'inherit',
    });
    if (built.status !== 0) throw new Error('building the package failed');
  }
  // prepack would build again, emptying dist/widget under suites that run beside this one.
  const packed = spawnSync('npm', ['pack', '--ignore-scripts', '--pack-destination', dir], {
    cwd: root,
    encoding: 'utf8',
  });
  if (packed.status !== 0) throw new Error(`npm pack failed: ${packed.stderr}`);
  const tarball = readdirSync(dir).find((name) => /^kassa-\d+\.\d+\.\d+\.tgz$/.test(name));
  if (!tarball) throw new Error(`npm pack wrote no kassa-<version>.tgz: ${packed.stdout}`);
  return join(dir, tarball);
}

export const PROJECT_FILES: Record<string, string> = {
  'index.html': `<!doctype html>
<html lang="en">
  <head><meta charset="utf-8" /><title>Shop</title></head>
  <body>
    <main id="shop"></main>
    <script type="module" src="/main.js"></script>
  </body>
</html>
`,
  // The shop's page: its server told it the proxy and the checkout (here through /config.json).
  'main.js': `import 'kassa/widget';

const { proxy, checkout } = await (await fetch('/config.json')).json();
const element = document.createElement('kassa-checkout');
Object.assign(element, { proxy, checkout, returnUrl: location.origin + '/' });
document.querySelector('#shop').append(element);
`,
  'react.html': `<!doctype html>
<html lang="en">
  <head><meta charset="utf-8" /><title>React shop</title></head>
  <body>
    <div id="root"></div>
    <script type="module" src="/react-app.tsx"></script>
  </body>
</html>
`,
  'react-app.tsx': `import { useEffect, useState } from 'react';
import { createRoot } from 'react-dom/client';
import 'kassa/widget';
import type {} from 'kassa/react';

interface Config {
  proxy: string;
  checkout: string;
}

function Checkout({ proxy, checkout }: Config) {
  const [heard, setHeard] = useState<string[]>([]);
  const note = (line: string) => setHeard((lines) => [...lines, line]);
  return (
    <>
      <kassa-checkout
        proxy={proxy}
        checkout={checkout}
        return-url={location.origin + '/react.html'}
        onkassa-payment-created={(event) => note('created ' + event.detail.transactionId)}
        onkassa-status={(event) => note('status ' + event.detail.status)}
        onkassa-completed={(event) => note('completed ' + event.detail.status)}
      />
      <ol id="heard">
        {heard.map((line, index) => (
          <li key={index}>{line}</li>
        ))}
      </ol>
    </>
  );
}

function App() {
  const [config, setConfig] = useState<Config | null>(null);
  useEffect(() => {
    void fetch('/config.json')
      .then((response) => response.json() as Promise<Config>)
      .then(setConfig);
  }, []);
  return config ? <Checkout {...config} /> : <p>Loading…</p>;
}

createRoot(document.getElementById('root')!).render(<App />);
`,
  'vite.config.js': `import { defineConfig } from 'vite';

export default defineConfig({
  build: { target: 'es2022', rolldownOptions: { input: ['index.html', 'react.html'] } },
  oxc: { jsx: { runtime: 'automatic' } },
});
`,
  'tsconfig.json': JSON.stringify(
    {
      compilerOptions: {
        target: 'ES2022',
        module: 'ESNext',
        moduleResolution: 'Bundler',
        jsx: 'react-jsx',
        strict: true,
        noEmit: true,
        lib: ['ES2023', 'DOM', 'DOM.Iterable'],
        types: ['node'],
        allowJs: true,
        checkJs: true,
      },
      files: ['react-app.tsx', 'checkout.mjs', 'frameworks.ts'],
    },
    null,
    2,
  ),
  // The Vue and Svelte declarations, as a component's script would see them.
  'frameworks.ts': `import type {} from 'kassa/vue';
import type {} from 'kassa/svelte';
import type { GlobalComponents } from 'vue';
import type { SvelteHTMLElements } from 'svelte/elements';
import type { KassaCheckout, KassaOnramp } from 'kassa/widget';

// The DOM's own maps know the elements and their events.
const element: KassaCheckout | null = document.querySelector('kassa-checkout');
element?.addEventListener('kassa-completed', (event) => console.log(event.detail.status));
export const phase = element?.phase;

const onramp: KassaOnramp | null = document.querySelector('kassa-onramp');
onramp?.addEventListener('kassa-onramp-delivered', (event) => console.log(event.detail.txHash));
onramp?.addEventListener('kassa-onramp-status', (event) => console.log(event.detail.state));

export const vue: GlobalComponents['kassa-checkout'] | null = null;
export const vueOnramp: GlobalComponents['kassa-onramp'] | null = null;
export const svelteOnramp: SvelteHTMLElements['kassa-onramp'] = {
  'return-url': 'https://shop.example/buy',
  'onkassa-onramp-delivered': (event) => console.log(event.detail.amount, event.detail.symbol),
};
export const svelte: SvelteHTMLElements['kassa-checkout'] = {
  checkout: 'chk_1',
  mode: 'popup',
  'onkassa-completed': (event) => console.log(event.detail.transactionId),
};
`,
  // The shop's server creates the checkout; the amount is decided here, never in the browser.
  'checkout.mjs': `import { createKassaClient } from 'kassa/server';

const kassa = createKassaClient({ proxyUrl: String(process.env.PROXY), merchantKey: String(process.env.MERCHANT_KEY) });
const checkout = await kassa.checkouts.create({ amount: '12.50', currencyCode: 'EUR', reference: String(process.argv[2]) });
console.log(JSON.stringify(checkout));
`,
  // A server-side render imports the widget too: it must do nothing harmful there.
  'ssr.mjs': `const widget = await import('kassa/widget');
console.log(JSON.stringify({ exports: Object.keys(widget), window: typeof window }));
`,
};

/**
 * A folder holding better-sqlite3's prebuilt binary for this Node and platform, as its release on
 * GitHub would: where a merchant's `npm install` downloads it, this machine has no internet, and would
 * compile SQLite from source instead (a minute and a half of a busy CPU). The binary is the one this
 * repository's own install built, packed under the name prebuild-install looks for.
 */
function betterSqlitePrebuilds(dir: string): string {
  const folder = join(dir, 'prebuilds');
  mkdirSync(folder, { recursive: true });
  const name = `better-sqlite3-v${version('better-sqlite3')}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  const packed = spawnSync('tar', ['-czf', join(folder, name), 'build/Release/better_sqlite3.node'], {
    cwd: join(root, 'node_modules', 'better-sqlite3'),
    encoding: 'utf8',
  });
  if (packed.status !== 0) throw new Error(`packing better-sqlite3's binary failed: ${packed.stderr}`);
  return folder;
}

/** Writes the project's package.json (the tarball as its dependency) and pages, then `npm install`. */
export function installProject(dir: string, tarball: string): number {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify(
      {
        name: 'a-shop',
        private: true,
        type: 'module',
        dependencies: { kassa: `file:${tarball}` },
        devDependencies: {
          vite: version('vite'),
          typescript: version('typescript'),
          react: '^19.0.0',
          'react-dom': '^19.0.0',
          '@types/react': '^19.0.0',
          '@types/react-dom': '^19.0.0',
          '@types/node': '^20.19.0',
          vue: '^3.5.0',
          svelte: '^5.0.0',
        },
        allowScripts: { 'better-sqlite3': true, '@foundry-rs/anvil': true, esbuild: true },
      },
      null,
      2,
    ),
  );
  for (const [name, text] of Object.entries(PROJECT_FILES)) writeFileSync(join(dir, name), text);
  const started = performance.now();
  // However long a busy machine takes: only a hang meets the bound.
  const installed = spawnSync('npm', ['install', '--no-audit', '--no-fund', '--loglevel', 'error'], {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, npm_config_better_sqlite3_local_prebuilds: betterSqlitePrebuilds(join(dir, '..')) },
    timeout: FILE_TIMEOUT_MS / 2,
  });
  if (installed.status !== 0)
    throw new Error(
      `npm install failed (${installed.error?.message ?? installed.signal ?? installed.status}):\n${installed.stdout}\n${installed.stderr}`,
    );
  return performance.now() - started;
}

/** Runs a command of the project (`npx …`, `node …`) and returns its output, failing with it. */
export function runIn(dir: string, command: string, args: string[], env: NodeJS.ProcessEnv = {}): string {
  const result = spawnSync(command, args, {
    cwd: dir,
    encoding: 'utf8',
    env: { ...process.env, ...env },
    timeout: TEST_TIMEOUT_MS,
  });
  if (result.status !== 0) throw new Error(`${command} ${args.join(' ')} failed:\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}

export interface Started {
  child: ChildProcess;
  lines: string[];
  /** The first line of standard output that `match` accepts, parsed as JSON. */
  line<T>(match: (line: T) => boolean): Promise<T>;
  stop(): Promise<void>;
}

/** Starts a long-running command of the project (the two bins), reading its JSON lines. */
export function startIn(dir: string, command: string, args: string[], env: NodeJS.ProcessEnv = {}): Started {
  // Its own process group: npx stands between us and node, and both must stop.
  const child = spawn(command, args, {
    cwd: dir,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const lines: string[] = [];
  let errors = '';
  child.stdout.on('data', (chunk: Buffer) => lines.push(...chunk.toString().split('\n').filter(Boolean)));
  child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    child,
    lines,
    async line<T>(match: (line: T) => boolean): Promise<T> {
      const deadline = Date.now() + PATIENCE_MS;
      for (;;) {
        for (const text of lines) {
          try {
            const parsed = JSON.parse(text) as T;
            if (match(parsed)) return parsed;
          } catch {
            // Not a JSON line: not the one awaited.
          }
        }
        if (child.exitCode !== null || Date.now() > deadline)
          throw new Error(`${command} ${args.join(' ')} printed no such line:\n${lines.join('\n')}\n${errors}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    async stop() {
      if (child.exitCode !== null) return;
      process.kill(-child.pid!, 'SIGTERM');
      await exited;
    },
  };
}
