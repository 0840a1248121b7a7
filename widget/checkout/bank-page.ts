import { isHttpsOrLoopback } from '../../lib/url-rules.ts';

/**
 * Whether the element may send the customer to a flowUrl the proxy handed it. The proxy hands out
 * only flowUrls on hosts the merchant configured (KASSA_FLOW_HOSTS); the element still refuses any
 * other scheme (javascript:, data:, ...), credentials in the URL, and plain http except to the
 * proxy's own host or to loopback (the local sandbox).
 */
export function isNavigableFlowUrl(flowUrl: string, proxyOrigin: string): boolean {
  if (isHttpsOrLoopback(flowUrl)) return true;
  try {
    const url = new URL(flowUrl);
    return url.protocol === 'http:' && !url.username && !url.password && url.hostname === new URL(proxyOrigin).hostname;
  } catch {
    return false;
  }
}
