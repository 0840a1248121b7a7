/**
 * `npm run build:extension`: the Manifest V3 extension in dist/extension/, loadable unpacked
 * (chrome://extensions → Developer mode → Load unpacked). Built by @crxjs/vite-plugin from
 * manifest.config.ts; the approval window's page is not in the manifest, so it is an extra input.
 */
import { fileURLToPath } from 'node:url';
import { crx } from '@crxjs/vite-plugin';
import { defineConfig } from 'vite';
import manifest from './manifest.config.ts';

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  root: here('.'),
  publicDir: here('public'),
  // Relative asset URLs; the extension is served from chrome-extension://<id>/.
  base: '',
  plugins: [
    crx({
      manifest,
      // The content scripts are single self-contained files run at document_start, not module loaders.
      contentScripts: { standaloneFiles: ['content/inpage.ts', 'content/bridge.ts'] },
    }),
  ],
  build: {
    outDir: here('../dist/extension'),
    emptyOutDir: true,
    target: 'es2022',
    minify: true,
    // No source maps in the package: they would ship every source file to each user.
    sourcemap: false,
    reportCompressedSize: false,
    rolldownOptions: { input: { approval: here('ui/approval.html') } },
  },
});
