import { join, normalize } from 'node:path';
import { Hono, type Context } from 'hono';
import { EncodedFiles, sendEncoded } from '../../server-kit/encoded-files.ts';
import { errorSchema } from '../../schemas/proxy-api.ts';
import type { ApiOperation, ApiOperations } from './openapi/operation.ts';
import type { ProxyServices } from '../services.ts';

/**
 * `/kassa.js` keeps its name across releases: fresh for five minutes (a shop's next pages load it
 * from the browser's cache), then revalidated with its ETag, so a new release reaches customers within
 * minutes. The chunks it loads carry a content hash in their names: cached for a year.
 */
const ENTRY_CACHE = 'public, max-age=300, must-revalidate';
const CHUNK_CACHE = 'public, max-age=31536000, immutable';

/**
 * The widget, served from the merchant's own origin so the shop can keep a strict CSP
 * (`script-src 'self'`), compressed as the browser accepts (Brotli or gzip, written by the build
 * beside each script; see server-kit/encoded-files.ts), with a 304 for a copy the browser still has.
 */
export function widgetRoutes({ config }: ProxyServices): Hono {
  const app = new Hono();
  const files = new EncodedFiles();

  const serve = async (c: Context, file: string, cacheControl: string) => {
    const path = normalize(join(config.widgetDir, file));
    const found = path.startsWith(normalize(config.widgetDir)) ? await files.get(path) : undefined;
    if (!found) {
      return c.json({ error: file === 'kassa.js' ? 'The widget is not built: run npm run build' : 'Not found' }, 404);
    }
    // Loaded as a module by pages of any origin: scripts are public, credentials are never sent.
    c.header('Access-Control-Allow-Origin', '*');
    c.header('Cross-Origin-Resource-Policy', 'cross-origin');
    return sendEncoded(c, found, { type: 'text/javascript; charset=utf-8', cacheControl });
  };

  app.get('/kassa.js', (c) => serve(c, 'kassa.js', ENTRY_CACHE));
  app.get('/kassa/:file{[A-Za-z0-9_.-]+\\.js}', (c) => serve(c, `kassa/${c.req.param('file')}`, CHUNK_CACHE));
  return app;
}

/** A script sent by `sendEncoded`: in the coding the request accepts best, revalidated with its ETag. */
export const encodedScript = (description: string): ApiOperation['responses'] => ({
  200: {
    description,
    text: { contentType: 'text/javascript' },
    headers: {
      ETag: { description: 'Send it back in If-None-Match to revalidate (one per coding)', required: true },
      'Content-Encoding': { description: '`br` or `gzip`, the best the request accepts; absent for identity' },
      Vary: { description: '`Accept-Encoding`', required: true },
    },
  },
  304: { description: 'Not modified: the copy the browser has (If-None-Match) is current' },
  406: {
    description: 'The request accepts none of br, gzip and identity (`identity;q=0` with nothing else)',
    json: { schema: errorSchema, example: { error: 'Send an Accept-Encoding that allows br, gzip or identity' } },
  },
});
const script = (description: string): ApiOperation['responses'] => ({
  ...encodedScript(description),
  404: {
    description: 'No such file (or the widget is not built)',
    json: { schema: errorSchema, example: { error: 'Not found' } },
  },
});
const SCRIPT_ACCESS = {
  auth: 'public',
  because: 'scripts are public and are loaded by the shop’s pages of any origin, without credentials.',
} as const;

export const widgetOperations: ApiOperations = {
  'GET /kassa.js': {
    operationId: 'getWidgetScript',
    summary: 'The widget’s script',
    description:
      'The `<kassa-checkout>` and `<kassa-bridge>` elements, served from the merchant’s own proxy so the shop can keep a strict CSP. Its name is kept across releases, so it is revalidated (ETag).',
    audience: 'browser',
    access: SCRIPT_ACCESS,
    responses: script('The script module'),
    errors: {},
  },
  'GET /kassa/{file}': {
    operationId: 'getWidgetChunk',
    summary: 'A chunk of the widget’s script',
    description:
      'A part of the widget that kassa.js loads; its name carries a hash of its content, so it is cached for a year.',
    audience: 'browser',
    access: SCRIPT_ACCESS,
    params: { file: { description: 'The chunk’s file name (`[A-Za-z0-9_.-]+.js`)', example: 'receipt-C3pXk9aQ.js' } },
    responses: script('The chunk'),
    errors: {},
  },
};
