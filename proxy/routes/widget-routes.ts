import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { join, normalize } from 'node:path';
import { Hono, type Context } from 'hono';
import { errorSchema } from '../../schemas/proxy-api.ts';
import type { ApiOperation, ApiOperations } from '../openapi/operation.ts';
import type { ProxyServices } from '../services.ts';

interface Asset {
  body: Buffer;
  etag: string;
  mtimeMs: number;
}

/**
 * The widget, served from the merchant's own origin so the shop can keep a strict CSP
 * (`script-src 'self'`). `/kassa.js` keeps its name across releases, so it is revalidated (ETag);
 * the chunks it loads carry a content hash in their names and are cached for a year.
 */
export function widgetRoutes({ config }: ProxyServices): Hono {
  const app = new Hono();
  const cache = new Map<string, Asset>();

  const load = async (file: string): Promise<Asset | undefined> => {
    const path = normalize(join(config.widgetDir, file));
    if (!path.startsWith(normalize(config.widgetDir))) return undefined;
    const info = await stat(path).catch(() => undefined);
    if (!info?.isFile()) return undefined;
    const cached = cache.get(path);
    if (cached && cached.mtimeMs === info.mtimeMs) return cached;
    const body = await readFile(path);
    const asset = {
      body,
      etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
      mtimeMs: info.mtimeMs,
    };
    cache.set(path, asset);
    return asset;
  };

  const serve = async (c: Context, file: string, immutable: boolean) => {
    const asset = await load(file);
    if (!asset) {
      return c.json({ error: file === 'kassa.js' ? 'The widget is not built: run npm run build' : 'Not found' }, 404);
    }
    c.header('Content-Type', 'text/javascript; charset=utf-8');
    c.header(
      'Cache-Control',
      immutable ? 'public, max-age=31536000, immutable' : 'public, max-age=300, stale-while-revalidate=86400',
    );
    c.header('ETag', asset.etag);
    // Loaded as a module by pages of any origin: scripts are public, credentials are never sent.
    c.header('Access-Control-Allow-Origin', '*');
    c.header('Cross-Origin-Resource-Policy', 'cross-origin');
    if (c.req.header('If-None-Match') === asset.etag) return c.body(null, 304);
    return c.body(new Uint8Array(asset.body));
  };

  app.get('/kassa.js', (c) => serve(c, 'kassa.js', false));
  app.get('/kassa/:file{[A-Za-z0-9_.-]+\\.js}', (c) => serve(c, `kassa/${c.req.param('file')}`, true));
  return app;
}

const script = (description: string): ApiOperation['responses'] => ({
  200: {
    description,
    text: { contentType: 'text/javascript' },
    headers: { ETag: { description: 'Send it back in If-None-Match to revalidate', required: true } },
  },
  304: { description: 'Not modified: the copy the browser has (If-None-Match) is current' },
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
    params: { file: 'The chunk’s file name (`[A-Za-z0-9_.-]+.js`)' },
    responses: script('The chunk'),
    errors: {},
  },
};
