import { getRequestListener } from '@hono/node-server';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer } from 'node:net';

export interface Listening {
  server: Server;
  port: number;
  /** `http://127.0.0.1:<port>`, without a trailing slash. */
  origin: string;
  /** Stops accepting, ends open connections (SSE streams too) and resolves once closed. */
  close(): Promise<void>;
}

/**
 * What is left of a request body once its answer is sent is read and dropped, so that the
 * connection's next request can be parsed: Node does this (IncomingMessage's _dump) only for a body
 * no one started reading, and a body the Fetch API began to read is a web stream that pauses the
 * socket whenever its buffer is full. Its listeners go, as Node's own drain removes them. How much is
 * left is bounded by whoever answered early (the body limit closes the connection beyond its drain size).
 */
function discardUnread(request: IncomingMessage): void {
  if (request.complete || request.destroyed) return;
  request.removeAllListeners('data');
  request.resume();
}

/** `http://<host>:<port>`, an IPv6 address in brackets. */
export const originOf = (hostname: string, port: number): string =>
  `http://${hostname.includes(':') ? `[${hostname}]` : hostname}:${port}`;

/** Listens on `host:port` (backlog included) and resolves once listening, or rejects with why not. */
async function bind(server: Server | TcpServer, host: string, port: number): Promise<void> {
  // Many clients (SSE subscribers, benchmarks) connect at once; the default backlog of 511 drops some.
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ port, host, backlog: 4096 }, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

const closed = (server: Server | TcpServer) => new Promise<void>((resolve) => server.close(() => resolve()));

/** Serves a fetch handler (a Hono app's) on loopback; port 0 picks a free port. */
export async function listen(
  fetch: (request: Request) => Response | Promise<Response>,
  options: {
    port?: number;
    hostname?: string;
    /**
     * More addresses to serve on, on the same port (the LAN address of `npm start -- --lan`): their
     * connections are handed to the one server, so closing it ends them too.
     */
    alsoOn?: readonly string[];
    /**
     * Answers a request on node:http before the fetch handler sees it, or returns false to pass it on:
     * a fast lane for the one hot read, where building a Request and a Response costs more than the answer.
     */
    preempt?: (request: IncomingMessage, response: ServerResponse) => boolean;
  } = {},
): Promise<Listening> {
  const hostname = options.hostname ?? '127.0.0.1';
  const { preempt } = options;
  // The adapter's own clean-up of unread bodies is replaced by discardUnread: it gives up on a body
  // after 500 ms, closing a keep-alive connection that the answer promised to keep.
  const listener = getRequestListener(fetch, { hostname, autoCleanupIncoming: false });
  const server = createServer((request, response) => {
    response.once('finish', () => discardUnread(request));
    if (!preempt?.(request, response)) void listener(request, response);
  });
  // An idle keep-alive connection is closed by the client, not under it: a server that closes first (Node's
  // 5 s) races a client reusing the connection at that moment, which then sees ECONNRESET. Clients that
  // pool (fetch: the server's hint less 1 s; browsers; load balancers, 60 s) close well before 65 s.
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 66_000;
  await bind(server, hostname, options.port ?? 0);
  const { port } = server.address() as AddressInfo;
  const extra: TcpServer[] = [];
  try {
    for (const host of new Set(options.alsoOn?.filter((host) => host !== hostname))) {
      const handOver = createTcpServer((socket) => server.emit('connection', socket));
      await bind(handOver, host, port);
      extra.push(handOver);
    }
  } catch (error) {
    await Promise.all([server, ...extra].map(closed));
    throw error;
  }
  return {
    server,
    port,
    origin: originOf(hostname, port),
    close: () => {
      const done = Promise.all([server, ...extra].map(closed)).then(() => undefined);
      server.closeAllConnections();
      return done;
    },
  };
}
