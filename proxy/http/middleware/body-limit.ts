import { bodyLimit as countedLimit } from 'hono/body-limit';
import { createMiddleware } from 'hono/factory';
import { HttpProblem } from '../http-problem.ts';

export interface BodyLimitOptions {
  /** The largest body the routes behind it take, in bytes. */
  maxSize: number;
  /**
   * How much of a refused body is still read and dropped after the 413, so that the keep-alive
   * connection carries the client's next request (4 MiB). A body declared larger than this, or of
   * unknown length, is answered with `Connection: close` instead: the client knows to reconnect.
   */
  drainSize?: number;
}

const defaults = { drainSize: 4 * 1024 * 1024 };

/**
 * Refuses a body larger than `maxSize` with a 413, keeping the connection usable. A declared size is
 * judged from `Content-Length` alone, without touching the body: reading it through the Fetch API
 * (as Hono's own bodyLimit does) wraps the socket in a web stream that pauses it after one chunk, so
 * the rest of the body was never drained and the connection's next request was dropped. Node's
 * server drains what no one read (server-kit/listen.ts). A chunked body is counted as it streams in,
 * and past the limit its remainder is unknown, so that answer closes the connection.
 */
export const bodyLimit = (options: BodyLimitOptions) => {
  const { maxSize, drainSize } = { ...defaults, ...options };
  const refuse = (close: boolean) =>
    new HttpProblem(413, `Request body is larger than ${maxSize} bytes`, close ? { Connection: 'close' } : {});
  const counted = countedLimit({
    maxSize,
    onError: () => {
      throw refuse(true);
    },
  });
  return createMiddleware(async function bodyLimit(c, next) {
    const declared = c.req.header('content-length');
    if (declared !== undefined) {
      const size = Number(declared);
      if (size <= maxSize) return next();
      throw refuse(size > drainSize);
    }
    // Neither Content-Length nor Transfer-Encoding: no body (RFC 9112, 6.3), and nothing to read.
    if (c.req.header('transfer-encoding') === undefined) return next();
    return counted(c, next);
  });
};
