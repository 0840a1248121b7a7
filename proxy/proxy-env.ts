/** What the proxy's middleware puts on a request's context, typed for `c.get`. */
export interface ProxyEnv {
  Variables: { requestId: string };
}
