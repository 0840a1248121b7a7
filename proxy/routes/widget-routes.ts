import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { join, normalize } from 'node:path';
import { Hono, type Context } from 'hono';
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
