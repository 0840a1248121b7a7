import { join, normalize } from 'node:path';
import { Hono, type Context } from 'hono';
import { EncodedFiles, sendEncoded } from '../../server-kit/encoded-files.ts';
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
