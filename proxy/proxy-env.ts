import type { RequestIdVariables } from 'hono/request-id';

/** What the proxy's middleware puts on a request's context, typed for `c.get`. */
export interface ProxyEnv {
  Variables: RequestIdVariables;
}
