import { isHttpsOrLoopback } from '../../lib/url-rules.ts';

const WINDOW_NAME = 'kassa-bank';

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

/**
 * A popup for the bank's pages (mode="popup"). Browsers allow a popup only in the click itself, not
 * after awaiting the proxy, so it opens blank and is sent to the flowUrl once known. Undefined when
 * the browser blocked it: the element then redirects instead. The popup keeps its opener: without
 * it the shop's page could no longer close the popup once the bank has answered, and the pages it
 * shows are the vouched-for bank host and the shop's own return page.
 */
export function openBankWindow(): Window | undefined {
  return window.open('', WINDOW_NAME, 'popup,width=500,height=720') ?? undefined;
}
