/**
 * The isolated-world content script: a relay, nothing more. It takes the page provider's requests
 * (window messages addressed to it, checked against their schema), passes them to the service worker
 * on a port, and posts the answers and events back. The page's origin is not in any message: the
 * service worker reads it from the port's sender. It holds no state but the requests in flight.
 */
import { RPC } from '../eip1193.ts';
import {
  MAX_PARAMS_JSON,
  PROVIDER_PORT,
  TO_PAGE,
  pageRequestSchema,
  portReplySchema,
  type PortReply,
} from '../page-messages.ts';

/** What the page hears once the extension was reloaded or removed under it. */
const GONE = { code: RPC.disconnected, message: 'Kassa was disabled or updated: reload the page' };
let port: chrome.runtime.Port | undefined;
const inFlight = new Set<string | number>();
let retries = 0;

const toPage = (reply: PortReply) => window.postMessage({ target: TO_PAGE, ...reply }, window.location.origin);

/** The extension was reloaded or removed under this page: nothing can reach it any more. */
const extensionGone = () => !chrome.runtime?.id;

function connect(): chrome.runtime.Port {
  const opened = chrome.runtime.connect({ name: PROVIDER_PORT });
  opened.onMessage.addListener((message: unknown) => {
    retries = 0;
    const reply = portReplySchema.safeParse(message);
    if (!reply.success) return;
    if (reply.data.type === 'response') inFlight.delete(reply.data.id);
    toPage(reply.data);
  });
  opened.onDisconnect.addListener(() => {
    port = undefined;
    for (const id of inFlight)
      toPage({
        type: 'response',
        id,
        error: { code: RPC.disconnected, message: 'Kassa stopped before answering: try again' },
      });
    inFlight.clear();
    if (extensionGone()) {
      toPage({ type: 'event', event: 'disconnect', data: GONE });
      return;
    }
    // The worker restarts on its own; reconnect so the page keeps receiving events (lock, chain).
    if (retries++ < 5) setTimeout(() => (port ??= connect()), 200 * retries);
  });
  return opened;
}

window.addEventListener('message', (event: MessageEvent) => {
  // A document with an opaque origin (CSP sandbox) is no site: nothing of it is relayed.
  if (event.source !== window || window.origin === 'null') return;
  const request = pageRequestSchema.safeParse(event.data);
  if (!request.success) return;
  const { id, method, params } = request.data;
  if (extensionGone()) return toPage({ type: 'response', id, error: GONE });
  if (params !== undefined && JSON.stringify(params).length > MAX_PARAMS_JSON)
    return toPage({ type: 'response', id, error: { code: RPC.invalidParams, message: 'The request is too large' } });
  port ??= connect();
  inFlight.add(id);
  const lang = document.documentElement.lang.slice(0, 35);
  port.postMessage({ type: 'request', id, method, params, ...(lang ? { lang } : {}) });
});
