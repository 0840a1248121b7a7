/**
 * The sign-in page's script and stylesheet, each served under its content's hash (cached for a year).
 * The script (`operator-page/`, with @simplewebauthn/browser) is built beside the proxy's bundle by
 * tools/build-proxy.ts; a proxy run from source builds it on first use, in memory.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { PAGE_STYLE } from './page-style.ts';

/** The built script's file beside the proxy's bundle. */
export const PAGE_SCRIPT_FILE = 'operator-page.js';

/** The script's sources, and how they are built (here and by tools/build-proxy.ts). */
export const PAGE_SCRIPT_BUILD = {
  entryPoints: [fileURLToPath(new URL('../../../operator-page/main.ts', import.meta.url))],
  bundle: true,
  format: 'esm' as const,
  platform: 'browser' as const,
  target: 'es2022',
  minify: true,
  legalComments: 'none' as const,
  logLevel: 'warning' as const,
};

export interface PageAsset {
  /** `/operator/scripts/operator-<hash>.js`, `/operator/styles/operator-<hash>.css` */
  path: string;
  body: string;
  contentType: string;
}

export interface PageAssets {
  script: PageAsset;
  style: PageAsset;
}

const asset = (folder: 'scripts' | 'styles', ext: 'js' | 'css', body: string, contentType: string): PageAsset => ({
  path: `/operator/${folder}/operator-${createHash('sha256').update(body).digest('hex').slice(0, 16)}.${ext}`,
  body,
  contentType,
});

async function scriptSource(): Promise<string> {
  const beside = fileURLToPath(new URL(`./${PAGE_SCRIPT_FILE}`, import.meta.url));
  if (existsSync(beside)) return readFile(beside, 'utf8');
  // From source (tsx): esbuild, a development dependency, builds it as the proxy's build would.
  const { build } = await import('esbuild');
  const built = await build({ ...PAGE_SCRIPT_BUILD, write: false });
  return built.outputFiles[0]!.text;
}

let loaded: Promise<PageAssets> | undefined;

/** The page's assets, read or built once per process. */
export function pageAssets(): Promise<PageAssets> {
  loaded ??= scriptSource().then(
    (script) => ({
      script: asset('scripts', 'js', script, 'text/javascript; charset=utf-8'),
      style: asset('styles', 'css', PAGE_STYLE, 'text/css; charset=utf-8'),
    }),
    (error: unknown) => {
      loaded = undefined;
      throw error;
    },
  );
  return loaded;
}
