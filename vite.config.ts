/**
 * `npm run build`: the widget as one ES module, dist/widget/kassa.js, that a script tag loads, plus
 * the chunks it imports on demand (other languages, elements loaded on first use) in
 * dist/widget/kassa/, where the proxy serves them (proxy/http/widget-routes.ts), each with its Brotli
 * and gzip codings beside it. Chunk names carry a content hash, so the proxy can let browsers cache
 * them for a year.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { defineConfig, type Plugin } from 'vite';
import { CODING_SUFFIX, compress } from './server-kit/encoded-files.ts';

/**
 * Lit's css`` styles go into kassa.js as written, indentation and all. This squeezes their
 * whitespace (runs to one space, none around braces, semicolons and commas, nor after a declaration's
 * colon) and drops comments; spaces elsewhere (descendant selectors, values) are kept, so the rules
 * mean the same.
 */
function minifyLitCss(): Plugin {
  const squeeze = (text: string) =>
    text
      .replace(/\/\*[^]*?\*\//g, '')
      .replace(/\s+/g, ' ')
      .replace(/\s*([{};,])\s*/g, '$1')
      // A declaration's or media feature's colon (after `{`, `;`, `(` or the start of a literal part, and
      // a name), zeros before a decimal point, and the last semicolon of a block.
      .replace(/((?:^ ?|[{;(])-{0,2}[a-z_][\w-]*):\s/g, '$1:')
      .replace(/([^\w.-])0\.(\d)/g, '$1.$2')
      .replace(/;}/g, '}')
      .trim();
  return {
    name: 'kassa-minify-lit-css',
    transform(code, id) {
      if (!/\/widget\/.*\.ts$/.test(id) || !code.includes('css`')) return null;
      // Only the literal parts: `${...}` expressions are left as they are.
      return code.replace(/\bcss`([^`]*)`/g, (_match, body: string) => {
        const parts = body.split(/(\$\{[^}]*\})/);
        return `css\`${parts.map((part) => (part.startsWith('${') ? part : squeeze(part))).join('')}\``;
      });
    },
  };
}

/** A JavaScript AST node, as far as minifyLitHtml looks at one. */
interface AstNode {
  type: string;
  start: number;
  end: number;
  tag?: AstNode & { name?: string };
  quasi?: { quasis: AstNode[] };
}

/**
 * Lit's html`` templates keep their source's line breaks and indentation. In HTML a run of spaces
 * and line breaks reads as one space (the widget has no <pre> or <textarea>), so each run that
 * holds a line break becomes one space. Runs from the template literals' text only, found through
 * the parser: a template nested in an expression is squeezed on its own.
 */
function minifyLitHtml(): Plugin {
  return {
    name: 'kassa-minify-lit-html',
    transform(code, id) {
      if (!/\/widget\/.*\.ts$/.test(id) || !code.includes('html`')) return null;
      const quasis: AstNode[] = [];
      const visit = (node: unknown): void => {
        if (Array.isArray(node)) return node.forEach(visit);
        if (!node || typeof node !== 'object') return;
        const at = node as AstNode;
        if (at.type === 'TaggedTemplateExpression' && at.tag?.type === 'Identifier' && at.tag.name === 'html')
          quasis.push(...at.quasi!.quasis);
        for (const value of Object.values(node)) if (value && typeof value === 'object') visit(value);
      };
      visit(this.parse(code));
      let out = code;
      for (const { start, end } of quasis.sort((a, b) => b.start - a.start))
        out = out.slice(0, start) + out.slice(start, end).replace(/[ \t]*\n\s*/g, ' ') + out.slice(end);
      return out;
    },
  };
}

/**
 * Each script also as `<name>.br` (Brotli, best quality) and `<name>.gz` (gzip, level 9) beside it,
 * which the proxy serves as they are (server-kit/encoded-files.ts): no compression work per request,
 * and at a quality no server compressing on the fly would spend.
 */
function precompress(): Plugin {
  return {
    name: 'kassa-precompress',
    async writeBundle(options, bundle) {
      const scripts = Object.values(bundle).filter((output) => output.type === 'chunk');
      await Promise.all(
        scripts.flatMap((chunk) =>
          (['br', 'gzip'] as const).map(async (coding) => {
            const path = join(options.dir!, chunk.fileName + CODING_SUFFIX[coding]);
            await writeFile(path, await compress(coding, Buffer.from(chunk.code)));
          }),
        ),
      );
    },
  };
}

export default defineConfig({
  publicDir: false,
  plugins: [minifyLitCss(), minifyLitHtml(), precompress()],
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
        comments: false,
        // The on-ramp's languages apart from the checkout's, which share their file names (de.ts, ...).
        chunkFileNames: ({ facadeModuleId }) =>
          /\/widget\/onramp\/messages\//.test(facadeModuleId ?? '')
            ? 'kassa/onramp-[name]-[hash].js'
            : 'kassa/[name]-[hash].js',
      },
    },
  },
});
