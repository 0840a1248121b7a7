import type { Context } from 'hono';
import { streamSSE, type SSEStreamingApi } from 'hono/streaming';

export interface SseOptions<T> {
  /** Starts listening; returns how to stop. Called before `current`, so no change falls between. */
  listen(send: (item: T) => void): () => void;
  /** What the client sees first. */
  current(): Promise<T | undefined>;
  event: string;
  /** The same state twice is sent once. */
  key(item: T): string;
  /** After sending this item the stream is complete and closes. */
  final?(item: T): boolean;
  heartbeatMs?: number;
  /** Streams end after this long; the client reconnects and gets the current state at once. */
  maxLifetimeMs?: number;
}

const sleep = (ms: number, signal: Promise<void>) => Promise.race([new Promise((resolve) => setTimeout(resolve, ms).unref()), signal]);

/**
 * A Server-Sent Events stream of one kind of state: the current state at once, each change after,
 * heartbeats in between, closed after a final state. Writes are queued so events keep their order.
 */
export function stateStream<T>(c: Context, options: SseOptions<T>): Response {
  c.header('Cache-Control', 'no-store');
  c.header('X-Accel-Buffering', 'no');
  return streamSSE(c, async (stream: SSEStreamingApi) => {
    let finish!: () => void;
    const finished = new Promise<void>((resolve) => (finish = resolve));
    let lastKey: string | undefined;
    let writes = Promise.resolve();
    const send = (item: T) => {
      writes = writes.then(async () => {
        const key = options.key(item);
        if (key === lastKey || stream.closed || stream.aborted) return;
        lastKey = key;
        await stream.writeSSE({ event: options.event, data: JSON.stringify(item), id: key });
        if (options.final?.(item)) finish();
      });
    };
    stream.onAbort(finish);
    const stop = options.listen(send);
    try {
      // How long a browser waits before reconnecting; a block without data dispatches no event.
      await stream.write('retry: 3000\n\n');
      const current = await options.current();
      if (current) send(current);
      const deadline = Date.now() + (options.maxLifetimeMs ?? 30 * 60_000);
      let done = false;
      void finished.then(() => (done = true));
      while (!done && Date.now() < deadline) {
        await sleep(options.heartbeatMs ?? 15_000, finished);
        if (!done) await stream.write(': keep-alive\n\n');
      }
      await writes;
    } finally {
      stop();
      await stream.close().catch(() => undefined);
    }
  });
}
