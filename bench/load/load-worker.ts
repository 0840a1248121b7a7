/**
 * Load from a worker thread, so that the client does not share the event loop of the server it
 * measures. Two jobs: `reads` (keep-alive GETs from N concurrent clients for a while, counting answers)
 * and `streams` (N SSE subscribers; reports when each gets an event whose data holds `until`).
 */
import { connect, type Socket } from 'node:net';
import { parentPort, workerData } from 'node:worker_threads';
import { ResponseReader } from './response-reader.ts';

/** Clients are spread over `urls` in turn (one URL per proxy instance behind a balancer). */
type Job =
  | { kind: 'reads'; urls: string[]; clients: number; durationMs: number }
  | { kind: 'streams'; urls: string[]; clients: number; until: string; timeoutMs: number };

const job = workerData as Job;

/**
 * Each client is a keep-alive connection sending its next GET once the last answer is complete, read
 * off the raw socket (response-reader.ts): Node's HTTP client would cost more than the server it loads.
 */
function reads({
  urls,
  clients,
  durationMs,
}: Extract<Job, { kind: 'reads' }>): Promise<{ answers: number; errors: number; seconds: number }> {
  const started = performance.now();
  const deadline = started + durationMs;
  let answers = 0;
  let errors = 0;
  const client = (_: unknown, index: number) =>
    new Promise<void>((resolve) => {
      const { hostname, port, pathname, search } = new URL(urls[index % urls.length]!);
      const get = Buffer.from(
        `GET ${pathname}${search} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAccept: application/json\r\n\r\n`,
        'latin1',
      );
      const connectAndSend = (): void => {
        if (performance.now() >= deadline) return resolve();
        const socket = connect(Number(port), hostname, () => socket.write(get));
        socket.setNoDelay(true);
        let finished = false;
        const reader = new ResponseReader((status) => {
          if (status === 200) answers++;
          else errors++;
          if (performance.now() < deadline) return void socket.write(get);
          finished = true;
          socket.destroy();
          resolve();
        });
        socket.on('data', (chunk: Buffer) => reader.push(chunk));
        // A failed or closed connection counts once and is replaced, as a browser would reconnect.
        socket.once('error', () => errors++);
        socket.once('close', () => {
          if (!finished) connectAndSend();
        });
      };
      connectAndSend();
    });
  return Promise.all(Array.from({ length: clients }, client)).then(() => ({
    answers,
    errors,
    seconds: (performance.now() - started) / 1000,
  }));
}

/**
 * Opens every stream, says when all have their first event, then records when each sees `until`.
 * Streams are read as raw sockets: one thread stands in for a thousand browsers, and Node's HTTP
 * client would spend more time per stream than the server does.
 */
function streams({
  urls,
  clients,
  until,
  timeoutMs,
}: Extract<Job, { kind: 'streams' }>): Promise<{ arrivals: number[]; missing: number }> {
  const arrivals: number[] = [];
  const sockets: Socket[] = [];
  let opened = 0;
  return new Promise((resolve) => {
    const done = () => {
      for (const socket of sockets) socket.destroy();
      resolve({ arrivals, missing: clients - arrivals.length });
    };
    const timer = setTimeout(done, timeoutMs);
    for (let i = 0; i < clients; i++) {
      let first = true;
      let arrived = false;
      const { hostname, port, pathname } = new URL(urls[i % urls.length]!);
      const socket = connect(Number(port), hostname, () =>
        socket.write(`GET ${pathname} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nAccept: text/event-stream\r\n\r\n`),
      );
      sockets.push(socket);
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => {
        if (first && chunk.includes('event: status')) {
          first = false;
          if (++opened === clients) parentPort!.postMessage({ ready: true });
        }
        if (!arrived && chunk.includes(until)) {
          arrived = true;
          arrivals.push(Date.now());
          // Left open until every stream has its event, as a browser keeps a finished connection in its
          // pool: closing each at once would load the servers with closes in the middle of the fan-out.
          if (arrivals.length === clients) {
            clearTimeout(timer);
            done();
          }
        }
      });
      socket.on('error', () => undefined);
    }
  });
}

const result = job.kind === 'reads' ? await reads(job) : await streams(job);
parentPort!.postMessage({ result });
