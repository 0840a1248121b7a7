import { isHttpsOrLocalHttp } from '../../lib/private-http.ts';

/**
 * Whether a flowUrl from the payment service may be handed to a browser: over https (plain http only
 * to loopback, the sandbox, or with KASSA_ALLOW_PRIVATE_HTTP to a private-network address), and on a
 * host the merchant configured: `host` matches the default port only, `host:port` exactly.
 */
export function isAllowedFlowUrl(flowUrl: string, hosts: readonly string[], privateHttp = false): boolean {
  if (!isHttpsOrLocalHttp(flowUrl, privateHttp)) return false;
  const url = new URL(flowUrl);
  return hosts.some((entry) =>
    entry.includes(':') && !entry.endsWith(']') ? url.host === entry : url.host === entry && url.port === '',
  );
}
