import { request } from 'node:http';
import { PATIENCE_MS } from './patience.ts';

export interface SseEvent {
  event: string;
  data: string;
  id?: string;
  at: number;
}

/**
 * A Server-Sent Events reader for node tests: records events and comments (heartbeats) as they
 * arrive, and tells when the server closed the stream.
 */
export function openSse(url: string, headers: Record<string, string> = {}) {
  const events: SseEvent[] = [];
  const comments: string[] = [];
  let closed = false;
  let status = 0;
  let responseHeaders: Record<string, string | string[] | undefined> = {};
  const waiters = new Set<() => void>();
  const wake = () => waiters.forEach((waiter) => waiter());

  const req = request(url, { headers: { Accept: 'text/event-stream', ...headers } }, (res) => {
    status = res.statusCode ?? 0;
    responseHeaders = res.headers;
    let buffer = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      buffer += chunk;
      let end: number;
      while ((end = buffer.indexOf('\n\n')) !== -1) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        const fields: Record<string, string> = {};
        for (const line of block.split('\n')) {
          if (line.startsWith(':')) comments.push(line.slice(1).trim());
          else if (line.includes(':')) {
            const [name, ...rest] = line.split(':');
            fields[name!] = (fields[name!] ? `${fields[name!]}\n` : '') + rest.join(':').replace(/^ /, '');
          }
        }
        if (fields.data !== undefined)
          events.push({ event: fields.event ?? 'message', data: fields.data, id: fields.id, at: Date.now() });
      }
      wake();
    });
    // 'close' also covers a server that drops the connection mid-stream (an instance going away).
    res.on('close', () => {
      closed = true;
      wake();
    });
  });
  req.on('error', () => {
    closed = true;
    wake();
  });
  req.end();

  const until = async (check: () => boolean, what: string) => {
    const deadline = Date.now() + PATIENCE_MS;
    while (!check()) {
      if (Date.now() > deadline)
        throw new Error(`SSE: timed out waiting for ${what}; got ${JSON.stringify(events.map((e) => e.data))}`);
      await new Promise<void>((resolve) => {
        const done = () => {
          waiters.delete(done);
          resolve();
        };
        waiters.add(done);
        setTimeout(done, 50);
      });
    }
  };

  return {
    events,
    comments,
    get closed() {
      return closed;
    },
    get status() {
      return status;
    },
    get headers() {
      return responseHeaders;
    },
    data: () => events.map((event) => JSON.parse(event.data) as Record<string, unknown>),
    waitForEvents: (count: number) => until(() => events.length >= count, `${count} events`),
    waitForClose: () => until(() => closed, 'the stream to close'),
    waitForComment: () => until(() => comments.length > 0, 'a heartbeat'),
    close: () => req.destroy(),
  };
}
