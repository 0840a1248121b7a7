/** One static file server on loopback that every panel of the benchmark is loaded from. */
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
};

export interface StaticServer {
  origin: string;
  close(): Promise<void>;
}

/** Serves each folder under its prefix (`/kassa/` → dist/widget); `pages` are fixed HTML documents by path. */
export async function startStaticServer(
  mounts: Record<string, string>,
  pages: Record<string, string> = {},
): Promise<StaticServer> {
  const server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url ?? '/', 'http://127.0.0.1').pathname);
    const page = pages[path];
    if (page !== undefined) {
      response.writeHead(200, { 'Content-Type': TYPES['.html'], 'Cache-Control': 'no-store' });
      response.end(page);
      return;
    }
    const mount = Object.keys(mounts).find((prefix) => path.startsWith(prefix));
    const base = mount === undefined ? undefined : mounts[mount]!;
    const file = base === undefined ? undefined : normalize(join(base, path.slice(mount!.length) || 'index.html'));
    if (file === undefined || !(file === base || file.startsWith(base! + sep))) {
      response.writeHead(404).end();
      return;
    }
    readFile(file.endsWith(sep) ? join(file, 'index.html') : file).then(
      (body) => {
        response.writeHead(200, {
          'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream',
          'Cache-Control': 'no-store',
        });
        response.end(body);
      },
      () => response.writeHead(404).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
