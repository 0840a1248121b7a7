import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync, gzipSync } from 'node:zlib';
import { Hono } from 'hono';
import { z } from 'zod';
import { errorSchema } from '../../../schemas/proxy-api.ts';
import { withServer, type OpenApiDocument } from './document.ts';
import type { ApiOperations } from './operation.ts';
import { publicOrigin } from '../../payments/return-url.ts';
import type { ProxyServices } from '../../services.ts';

/** The viewer's file, as the page asks for it. */
export const VIEWER_FILE = 'redoc.standalone.js';

/**
 * Redoc, Redocly's reference viewer, as the `@redocly/cli` package ships it for its own `build-docs`:
 * one self-contained module, so the page needs no CDN and works offline. The proxy's build puts it
 * gzipped beside the bundle (tools/build-proxy.ts); run from source, it is read from node_modules.
 */
export function viewerScript(): { path: string; gzipped: boolean } | undefined {
  const beside = fileURLToPath(new URL(`./${VIEWER_FILE}.gz`, import.meta.url));
  if (existsSync(beside)) return { path: beside, gzipped: true };
  try {
    const cli = dirname(createRequire(import.meta.url).resolve('@redocly/cli/package.json'));
    const shipped = join(cli, 'lib', 'chunks', VIEWER_FILE);
    return existsSync(shipped) ? { path: shipped, gzipped: false } : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The reference page's own policy: the viewer's module from this proxy only, the document from this
 * proxy only (its telemetry is switched off, and would be refused), and the inline styles its
 * components set.
 */
export const API_DOCS_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; worker-src 'self' blob:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'";

const PAGE = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Kassa proxy API</title>
  </head>
  <body>
    <redoc spec-url="/openapi.json" disable-telemetry="true"></redoc>
    <script type="module" src="/docs/${VIEWER_FILE}"></script>
  </body>
</html>
`;

export interface ApiDocsOptions {
  document: OpenApiDocument;
}

/**
 * `GET /openapi.json`, the document with this proxy's address in `servers`, and, with KASSA_API_DOCS=1,
 * the reference page at `/docs`.
 */
export function apiDocsRoutes({ config }: ProxyServices, { document }: ApiDocsOptions): Hono {
  const app = new Hono();
  const served = new Map<string, string>();
  app.get('/openapi.json', (c) => {
    const server = publicOrigin(config.publicUrl, c.req.url) ?? '';
    let body = served.get(server);
    if (body === undefined) {
      body = JSON.stringify(withServer(document, server || undefined));
      // Loopback origins differ by port only; a handful at most.
      if (served.size < 16) served.set(server, body);
    }
    return c.body(body, 200, { 'Content-Type': 'application/json' });
  });
  if (!config.apiDocs) return app;

  const script = viewerScript();
  let viewer: Promise<{ plain: Buffer; gzip: Buffer }> | undefined;
  app.get('/docs', (c) => {
    c.header('Content-Security-Policy', API_DOCS_CSP);
    return c.html(PAGE);
  });
  app.get(`/docs/${VIEWER_FILE}`, async (c) => {
    if (!script) return c.json({ error: 'The reference viewer is not installed: run npm run build' }, 404);
    viewer ??= readFile(script.path).then((data) =>
      script.gzipped ? { plain: gunzipSync(data), gzip: data } : { plain: data, gzip: gzipSync(data) },
    );
    const { plain, gzip } = await viewer;
    const zipped = /\bgzip\b/.test(c.req.header('Accept-Encoding') ?? '');
    c.header('Content-Type', 'text/javascript; charset=utf-8');
    c.header('Cache-Control', 'public, max-age=3600');
    c.header('Vary', 'Accept-Encoding');
    if (zipped) c.header('Content-Encoding', 'gzip');
    return c.body(new Uint8Array(zipped ? gzip : plain));
  });
  return app;
}

const DOCS_ACCESS = {
  auth: 'public',
  because: 'it describes the API and holds no secret: every operation still wants its own credential.',
} as const;

export const openApiOperations: ApiOperations = {
  'GET /openapi.json': {
    operationId: 'getOpenApiDocument',
    summary: 'This document',
    description:
      'The OpenAPI 3.1 document of this proxy, with its address in `servers`: feed it to a code generator (docs/integrate.md).',
    audience: 'infrastructure',
    access: DOCS_ACCESS,
    responses: {
      200: {
        description: 'The document',
        json: {
          schema: z.record(z.string(), z.unknown()),
          example: { openapi: '3.1.0', info: { title: 'Kassa proxy' } },
        },
      },
    },
    errors: {},
  },
};

/** Served only with KASSA_API_DOCS=1, and described only then. */
export const apiReferenceOperations: ApiOperations = {
  'GET /docs': {
    operationId: 'getApiReference',
    summary: 'The reference page',
    description: 'This document in Redoc, served by the proxy itself (no CDN): only with KASSA_API_DOCS=1.',
    audience: 'infrastructure',
    access: DOCS_ACCESS,
    responses: { 200: { description: 'The page', text: { contentType: 'text/html' } } },
    errors: {},
  },
  [`GET /docs/${VIEWER_FILE}`]: {
    operationId: 'getApiReferenceViewer',
    summary: 'The reference page’s viewer',
    description: 'Redoc’s standalone module, as `@redocly/cli` ships it (MIT).',
    audience: 'infrastructure',
    access: DOCS_ACCESS,
    responses: {
      200: { description: 'The module', text: { contentType: 'text/javascript' } },
      404: {
        description: 'The viewer is not installed beside the proxy',
        json: { schema: errorSchema, example: { error: 'The reference viewer is not installed' } },
      },
    },
    errors: {},
  },
};
