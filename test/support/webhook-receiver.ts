import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PATIENCE_MS } from './patience.ts';

export interface ReceivedRequest {
  at: number;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** An answer as scripted: a status, with headers (Retry-After) and a delay of its own if need be. */
export interface ScriptedAnswer {
  status: number;
  headers?: Record<string, string>;
  delayMs?: number;
}

/**
 * A webhook endpoint on loopback that records every delivery and answers as scripted:
 * `answers` are the statuses of the first requests (then 200); `delayMs` holds answers back;
 * `respond` decides from the request (a status, or an answer with headers and a delay).
 */
export async function startReceiver(
  options: {
    answers?: number[];
    delayMs?: number;
    respond?: (request: ReceivedRequest) => number | ScriptedAnswer;
    /** Holds each answer until it resolves (a receiver stalled until the test lets it go). */
    gate?: () => Promise<void>;
  } = {},
) {
  const answers = [...(options.answers ?? [])];
  const received: ReceivedRequest[] = [];
  const waiters: Array<() => void> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const request = {
        at: Date.now(),
        path: req.url ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      };
      received.push(request);
      waiters.splice(0).forEach((wake) => wake());
      const scripted = answers.shift() ?? options.respond?.(request) ?? 200;
      const answer = typeof scripted === 'number' ? { status: scripted } : scripted;
      const send = () =>
        setTimeout(
          () => {
            res.writeHead(answer.status, answer.headers);
            res.end('ok');
          },
          answer.delayMs ?? options.delayMs ?? 0,
        );
      if (options.gate) void options.gate().then(send);
      else send();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    /** Resolves once `count` requests have arrived; rejects only when they never do. */
    async waitFor(count: number): Promise<ReceivedRequest[]> {
      const deadline = Date.now() + PATIENCE_MS;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`expected ${count} webhook deliveries, got ${received.length}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 50);
        });
      }
      return received.slice(0, count);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
