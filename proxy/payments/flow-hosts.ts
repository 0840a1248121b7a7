const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * Whether a flowUrl from the payment service may be handed to a browser: its host must be one the
 * merchant configured (`host` matches the default port only, `host:port` exactly), over https, or
 * plain http to a loopback host (the sandbox).
 */
export function isAllowedFlowUrl(flowUrl: string, hosts: readonly string[]): boolean {
  let url: URL;
  try {
    url = new URL(flowUrl);
  } catch {
    return false;
  }
  if (url.username || url.password) return false;
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK.has(url.hostname))) return false;
  return hosts.some((entry) => (entry.includes(':') && !entry.endsWith(']') ? url.host === entry : url.host === entry && url.port === ''));
}
