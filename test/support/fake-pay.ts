import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** How the fake payment service misbehaves on the requests a rule matches. */
export type Misbehaviour =
  /** 200 and its headers, then `{` and nothing more, for as long as the client waits. */
  | { kind: 'stall' }
  /** 200 and its headers, then one byte every `everyMs`, never ending. */
  | { kind: 'trickle'; everyMs: number }
  /** The emulator's own answer, once the test calls `release()`: a slow service whose end the test decides. */
  | { kind: 'hold' }
  /** A 200 JSON answer of `bytes` bytes (chunked, or with its Content-Length), sent as fast as it is read. */
  | { kind: 'oversize'; bytes: number; contentLength?: boolean }
  /** What the emulator answers for `path` instead (another payment's record, say). */
  | { kind: 'swap'; path: string }
  /** The emulator's own answer, changed. */
  | { kind: 'rewrite'; change: (body: Record<string, unknown>) => Record<string, unknown> };

export interface FakeRule {
  /** Requests whose path (under the service's base, such as `/v1/auth/token`) starts with this. */
  path: string;
  /** How many requests it spoils (all of them by default). */
  times?: number;
  misbehaviour: Misbehaviour;
}

/**
 * A payment service that misbehaves on demand: a loopback server in front of the emulator's payment
 * API (`sandbox.pay`) that passes every request through until a rule says to stall, trickle, send an
 * oversized answer or answer about another payment. Point KASSA_PAY_BASE_URL at `url`. In front of
 * the order service (`sandbox.orders`, KASSA_ORDERS_BASE_URL) it does the same for orders.
 */
export async function startFakePay(upstream: string) {
  const base = new URL(upstream);
  const basePath = base.pathname.replace(/\/+$/, '');
  let rules: Array<FakeRule & { left: number }> = [];
  const sockets = new Set<Socket>();
  /** Requests held by a `hold` rule, each waiting for `release()`. */
  const held: Array<() => void> = [];
  /** Requests spoiled, bytes of oversized answers written, and every request by its path. */
  const stats = { spoiled: 0, bytesSent: 0, byPath: new Map<string, number>() };

  const server = createServer((request, response) => {
    void handle(request, response).catch(() => response.destroy());
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const path = (request.url ?? '/').slice(basePath.length).split('?')[0]!;
    stats.byPath.set(path, (stats.byPath.get(path) ?? 0) + 1);
    const rule = rules.find((candidate) => candidate.left > 0 && path.startsWith(candidate.path));
    if (rule) {
      rule.left--;
      stats.spoiled++;
    }
    const misbehaviour = rule?.misbehaviour;
    if (misbehaviour?.kind === 'stall' || misbehaviour?.kind === 'trickle') {
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.write('{');
      if (misbehaviour.kind === 'trickle') {
        const timer = setInterval(() => response.write('"'), misbehaviour.everyMs);
        response.once('close', () => clearInterval(timer));
      }
      return;
    }
    if (misbehaviour?.kind === 'oversize') return oversize(response, misbehaviour);
    if (misbehaviour?.kind === 'hold') await new Promise<void>((resolve) => held.push(resolve));
    const target = misbehaviour?.kind === 'swap' ? `${basePath}${misbehaviour.path}` : request.url!;
    const answer = await fetch(new URL(target, base.origin), {
      method: request.method,
      headers: Object.fromEntries(
        ['authorization', 'content-type', 'x-api-key'].flatMap((name) =>
          request.headers[name] ? [[name, String(request.headers[name])]] : [],
        ),
      ),
      body: chunks.length ? Buffer.concat(chunks) : undefined,
    });
    let body = await answer.text();
    if (misbehaviour?.kind === 'rewrite' && answer.ok)
      body = JSON.stringify(misbehaviour.change(JSON.parse(body) as Record<string, unknown>));
    const headers: Record<string, string> = { 'Content-Type': answer.headers.get('content-type') ?? 'text/plain' };
    const retryAfter = answer.headers.get('retry-after');
    if (retryAfter) headers['Retry-After'] = retryAfter;
    response.writeHead(answer.status, headers);
    response.end(body);
  }

  /** `{"access_token":"aaa…"}`, `bytes` long, written as the client takes it; stops when it hangs up. */
  function oversize(response: ServerResponse, { bytes, contentLength }: { bytes: number; contentLength?: boolean }) {
    const head = '{"access_token":"';
    const chunk = Buffer.alloc(64 * 1024, 'a');
    response.writeHead(200, {
      'Content-Type': 'application/json',
      ...(contentLength ? { 'Content-Length': String(bytes) } : {}),
    });
    let left = bytes - head.length - 2;
    response.write(head);
    const pump = () => {
      while (left > 0 && !response.destroyed) {
        const piece = left >= chunk.length ? chunk : chunk.subarray(0, left);
        left -= piece.length;
        stats.bytesSent += piece.length;
        if (!response.write(piece)) return void response.once('drain', pump);
      }
      if (!response.destroyed) response.end('"}');
    };
    pump();
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    /** The service's base address, as KASSA_PAY_BASE_URL. */
    url: `http://127.0.0.1:${port}${basePath}`,
    stats,
    misbehave(rule: FakeRule): void {
      rules.push({ ...rule, left: rule.times ?? Infinity });
    },
    /** Behaves again from the next request on; answers already stalled or trickling stay as they are. */
    recover(): void {
      rules = [];
    },
    /** How many requests a `hold` rule holds now. */
    get holding(): number {
      return held.length;
    },
    /** Lets every held request through to the emulator. */
    release(): void {
      for (const resolve of held.splice(0)) resolve();
    },
    async close(): Promise<void> {
      for (const resolve of held.splice(0)) resolve();
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

export type FakePay = Awaited<ReturnType<typeof startFakePay>>;
