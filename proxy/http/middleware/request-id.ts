import { createMiddleware } from 'hono/factory';

/** What the proxy's middleware puts on a request's context, typed for `c.get`. */
export interface ProxyEnv {
  Variables: { requestId: string };
}

/** What a client may send as its own request id: up to 255 word characters, `-` and `=`. */
const SENT_ID = /^[\w\-=]{1,255}$/;

/** The client's X-Request-Id when it is a sensible one (a caller tracing its calls), else a fresh one. */
export function requestIdFor(sent: string | undefined): string {
  return sent !== undefined && SENT_ID.test(sent) ? sent : crypto.randomUUID();
}

/** Gives every request an id, on the context for the log line and in the answer's X-Request-Id. */
export const requestId = () =>
  createMiddleware<ProxyEnv>(async function requestId(c, next) {
    const id = requestIdFor(c.req.header('X-Request-Id'));
    c.set('requestId', id);
    c.header('X-Request-Id', id);
    await next();
  });
