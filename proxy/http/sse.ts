import type { ServerResponse } from 'node:http';
import type { Context } from 'hono';
import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response';
import type { Logger } from '../logger.ts';
import { PRIVATE_READ } from './cache-control.ts';

export interface SseOptions<T extends object> {
  /** Starts listening; returns how to stop. Called before `current`, so no change falls between. */
  listen(send: (item: T) => void): () => void;
  /** What the client sees first. */
  current(): Promise<T | undefined>;
  event: string;
  /**
   * The same state twice is sent once. One function per kind of stream (made once, not per request):
   * the frame of a change is then made once for all the streams of that kind.
   */
  key: (item: T) => string;
  /** After sending this item the stream is complete and closes. */
  final?(item: T): boolean;
  heartbeatMs?: number;
  /** Where a failure after the stream started goes: the status line is sent, so it can only be logged. */
  logger: Logger;
  /** Streams end after this long; the client reconnects and gets the current state at once. */
  maxLifetimeMs?: number;
  /** Counts the streams open now (for /metrics). */
  open?: { inc(): void; dec(): void };
  /**
   * Ends the stream early, with a last event (the operator's credential stopped working, say): called
   * once the stream is open with the function that ends it; returns how to stop watching.
   */
  watch?(end: (last: { event: string; data: object }) => void): () => void;
}

/** One change as it goes on the wire, with the key that tells repeats apart. */
interface Frame {
  key: string;
  bytes: Buffer;
}

/**
 * One change reaches every subscriber as the same object: its frame (key, JSON, the bytes) is made
 * once per change and kind of stream (known by its key function), not once per stream, so a fan-out
 * to thousands of streams costs each of them only its write.
 */
const frames = new WeakMap<object, WeakMap<object, Frame>>();
function frameOf<T extends object>(event: string, item: T, keyOf: (item: T) => string): Frame {
  let byItem = frames.get(keyOf);
  if (!byItem) frames.set(keyOf, (byItem = new WeakMap()));
  let frame = byItem.get(item);
  if (!frame) {
    const key = keyOf(item);
    frame = { key, bytes: Buffer.from(`event: ${event}\nid: ${key}\ndata: ${JSON.stringify(item)}\n\n`) };
    byItem.set(item, frame);
  }
  return frame;
}

/**
 * A Server-Sent Events stream of one kind of state: the current state at once, each change after,
 * heartbeats in between, closed after a final state. It writes straight to the Node response (the
 * adapter's documented escape hatch) rather than through a web stream per subscriber.
 */
export async function stateStream<T extends object>(c: Context, options: SseOptions<T>): Promise<Response> {
  const res = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
  if (!res) throw new Error('Server-Sent Events need the Node adapter (@hono/node-server)');
  // Headers middleware has set so far (CORS, security, request id) travel with the stream. Then the
  // context holds the adapter's already-sent marker itself: set over an existing response, Hono would
  // copy it into a new one, which the adapter would try to send a second time.
  const headers: Record<string, string> = Object.fromEntries(c.res.headers);
  c.res = undefined;
  c.res = RESPONSE_ALREADY_SENT;
  res.writeHead(200, {
    ...headers,
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': PRIVATE_READ,
    'x-accel-buffering': 'no',
    connection: 'keep-alive',
  });
  // How long a browser waits before reconnecting; a block without data dispatches no event.
  res.write('retry: 3000\n\n');

  let lastKey: string | undefined;
  let stop = () => {};
  let unwatch = () => {};
  const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), options.heartbeatMs ?? 15_000);
  const lifetime = setTimeout(() => end(), options.maxLifetimeMs ?? 30 * 60_000);
  heartbeat.unref();
  lifetime.unref();
  options.open?.inc();
  /** Ends the stream, with its last frame in the same write when there is one. */
  const end = (last?: Buffer) => {
    if (res.writableEnded) return;
    if (last) res.end(last);
    options.open?.dec();
    clearInterval(heartbeat);
    clearTimeout(lifetime);
    stop();
    unwatch();
    if (!res.writableEnded) res.end();
  };
  const send = (item: T) => {
    const frame = frameOf(options.event, item, options.key);
    if (frame.key === lastKey || res.writableEnded) return;
    lastKey = frame.key;
    if (options.final?.(item)) end(frame.bytes);
    else res.write(frame.bytes);
  };

  res.once('close', end);
  stop = options.listen(send);
  if (options.watch)
    unwatch = options.watch((last) => end(Buffer.from(`event: ${last.event}\ndata: ${JSON.stringify(last.data)}\n\n`)));
  try {
    const current = await options.current();
    if (current) send(current);
  } catch (error) {
    options.logger.error('event stream failed', { error, event: options.event });
    end();
  }
  return c.res;
}
