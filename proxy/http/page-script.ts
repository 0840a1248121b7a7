/**
 * The scripts of the proxy's own pages (the operators' page, a link's page): each bundled from its
 * folder of browser code by esbuild, built beside the proxy's bundle by tools/build-proxy.ts, and by a
 * proxy run from source on first use, in memory.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { encodeBody, type EncodedFile } from '../../server-kit/encoded-files.ts';

export interface PageScript {
  /** The built file's name beside the proxy's bundle (`operator-page.js`). */
  file: string;
  /** How it is built (here and by tools/build-proxy.ts). */
  build: {
    entryPoints: string[];
    bundle: true;
    format: 'esm';
    platform: 'browser';
    target: string;
    minify: true;
    legalComments: 'none';
    logLevel: 'warning';
  };
}

/** A page's script: `entry` is its main module's URL (`new URL('…/main.ts', import.meta.url)`). */
export const pageScript = (file: string, entry: URL): PageScript => ({
  file,
  build: {
    entryPoints: [fileURLToPath(entry)],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    legalComments: 'none',
    logLevel: 'warning',
  },
});

/** The script's source: the built file beside the bundle, else built now from its sources. */
export async function pageScriptSource({ file, build: options }: PageScript): Promise<string> {
  // In the bundle (dist/proxy/server.js), import.meta.url is the bundle's: the file is beside it.
  const beside = fileURLToPath(new URL(`./${file}`, import.meta.url));
  if (existsSync(beside)) return readFile(beside, 'utf8');
  // From source (tsx): esbuild, a development dependency, builds it as the proxy's build would.
  const { build } = await import('esbuild');
  const built = await build({ ...options, write: false });
  return built.outputFiles[0]!.text;
}

/** The first 16 hex digits of the SHA-256 of `body`: an asset's name changes with its content. */
export const contentHash = (body: string): string => createHash('sha256').update(body).digest('hex').slice(0, 16);

export interface ServedScript {
  /** Where the page loads it: `path(contentHash)`, so that it may be cached for a year. */
  path: string;
  body: string;
  /** The body in every coding, for `sendEncoded`. */
  encoded: EncodedFile;
}

/** The script as served, read or built once per process (and again after a failure). */
export function servedPageScript(script: PageScript, path: (hash: string) => string): () => Promise<ServedScript> {
  let loading: Promise<ServedScript> | undefined;
  return () =>
    (loading ??= pageScriptSource(script).then(
      async (body) => ({ path: path(contentHash(body)), body, encoded: await encodeBody(Buffer.from(body)) }),
      (error: unknown) => {
        loading = undefined;
        throw error;
      },
    ));
}
