/**
 * `npm run build`: the widget as one ES module, dist/widget/kassa.js, that a script tag loads, plus
 * the chunks it imports on demand (other languages, elements loaded on first use) in
 * dist/widget/kassa/, where the proxy serves them (proxy/routes/widget-routes.ts). Chunk names carry
 * a content hash, so the proxy can let browsers cache them for a year.
 */
import { defineConfig } from 'vite';

export default defineConfig({
  publicDir: false,
  build: {
    outDir: 'dist/widget',
    emptyOutDir: true,
    target: 'es2022',
    // Lit's production build; the dev build's warnings are for developers of the widget, not shops.
    minify: true,
    reportCompressedSize: true,
    lib: { entry: 'widget/kassa.ts', formats: ['es'], fileName: () => 'kassa.js' },
    rolldownOptions: {
      // Library mode keeps the entry's exports exactly as written ('strict'), so modules that kassa.js
      // and a chunk share (Lit, widget/shared/) would go to a third chunk that kassa.js imports. Let
      // kassa.js export them to its chunks instead: one script, and chunks that load only when used.
      preserveEntrySignatures: 'allow-extension',
      output: {
        // Library mode bundles dynamic imports inline unless told to split; the chunks are the point.
        codeSplitting: true,
        minify: true,
        chunkFileNames: 'kassa/[name]-[hash].js',
      },
    },
  },
});
