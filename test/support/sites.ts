/**
 * Web sites of several names on one loopback server, each a distinct origin to the browser and the
 * extension: `*.localhost` (Chromium resolves every one to loopback, and treats them as secure
 * contexts, as https sites are) and `*.test` (plain http, not a secure context; mapped to loopback by
 * the `HOST_RULES` switch of the Chromium that visits them). A path answers its page, with the headers
 * it is given (a CSP sandbox, say); any other path a plain page.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The Chromium switch that maps every `*.test` name to 127.0.0.1. */
export const HOST_RULES = '--host-resolver-rules=MAP *.test 127.0.0.1';

export interface SitePage {
  body: string;
  headers?: Record<string, string>;
}

export interface Sites {
  /** `http://{host}:{port}` */
  origin(host: string): string;
  close(): Promise<void>;
}

const PLAIN =
  '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>A site</title></head><body><h1>A site</h1></body></html>';

export async function startSites(pages: Record<string, SitePage> = {}): Promise<Sites> {
  const server: Server = createServer((request, response) => {
    const page = pages[new URL(request.url ?? '/', 'http://x').pathname];
    response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', ...page?.headers });
    response.end(page?.body ?? PLAIN);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: (host) => `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
