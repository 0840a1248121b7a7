import { isHttpsOrLoopback } from '../../lib/url-rules.ts';

/**
 * Whether a flowUrl from the payment service may be handed to a browser: over https (plain http only
 * to loopback, the sandbox), and on a host the merchant configured: `host` matches the default port
 * only, `host:port` exactly.
 */
export function isAllowedFlowUrl(flowUrl: string, hosts: readonly string[]): boolean {
  if (!isHttpsOrLoopback(flowUrl)) return false;
  const url = new URL(flowUrl);
  return hosts.some((entry) =>
    entry.includes(':') && !entry.endsWith(']') ? url.host === entry : url.host === entry && url.port === '',
  );
}
