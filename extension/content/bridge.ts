/**
 * The isolated-world content script: a relay, nothing more. It takes the page provider's requests
 * (window messages addressed to it, checked against their schema), passes them to the service worker
 * on a port, and posts the answers and events back. The page's origin is not in any message: the
 * service worker reads it from the port's sender. It holds no state but the requests in flight, and
 * whether the extension is gone from under the page, the one thing only it can tell the page.
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

/** What the page hears once the extension was reloaded, updated, disabled or removed under it. */
const GONE = { code: RPC.disconnected, message: 'Kassa was disabled or updated: reload the page' };
let port: chrome.runtime.Port | undefined;
let gone = false;
const inFlight = new Set<string | number>();
let retries = 0;

const toPage = (reply: PortReply) => window.postMessage({ target: TO_PAGE, ...reply }, window.location.origin);

/**
 * Nothing of this extension can be reached from this page any more: this script outlived it (its
 * context is invalidated: `chrome.runtime.id` is gone, and `connect` throws). A new version's scripts
 * reach only pages loaded after it, so the page must be reloaded.
 */
const extensionGone = () => gone || !chrome.runtime?.id;

/** Tells the page once (EIP-1193 `disconnect`, 4900); from then on every request is answered 4900 at once. */
function goneForGood(): void {
  port = undefined;
  if (gone) return;
  gone = true;
  toPage({ type: 'event', event: 'disconnect', data: GONE });
}

function connect(): chrome.runtime.Port | undefined {
  let opened: chrome.runtime.Port;
  try {
    opened = chrome.runtime.connect({ name: PROVIDER_PORT });
  } catch {
    // "Extension context invalidated": reloaded or removed since the last check.
    goneForGood();
    return undefined;
  }
  opened.onMessage.addListener((message: unknown) => {
    retries = 0;
    const reply = portReplySchema.safeParse(message);
    if (!reply.success) return;
    if (reply.data.type === 'response') inFlight.delete(reply.data.id);
    toPage(reply.data);
  });
  opened.onDisconnect.addListener(() => {
    if (port === opened) port = undefined;
    for (const id of inFlight)
      toPage({
        type: 'response',
        id,
        error: { code: RPC.disconnected, message: 'Kassa stopped before answering: try again' },
      });
    inFlight.clear();
    if (extensionGone()) return goneForGood();
    // The worker restarts on its own; reconnect so the page keeps receiving events (lock, chain). A
    // worker that cannot be reached again leaves the page disconnected until its next request.
    if (retries++ < 5) setTimeout(() => (port ??= connect()), 200 * retries);
    else
      toPage({
        type: 'event',
        event: 'disconnect',
        data: { code: RPC.disconnected, message: 'Kassa does not answer' },
      });
  });
  return opened;
}

window.addEventListener('message', (event: MessageEvent) => {
  // A document with an opaque origin (CSP sandbox) is no site: nothing of it is relayed.
  if (event.source !== window || window.origin === 'null') return;
  const request = pageRequestSchema.safeParse(event.data);
  if (!request.success) return;
  const { id, method, params } = request.data;
  if (extensionGone()) {
    goneForGood();
    return toPage({ type: 'response', id, error: GONE });
  }
  if (params !== undefined && JSON.stringify(params).length > MAX_PARAMS_JSON)
    return toPage({ type: 'response', id, error: { code: RPC.invalidParams, message: 'The request is too large' } });
  port ??= connect();
  if (!port) return toPage({ type: 'response', id, error: GONE });
  inFlight.add(id);
  const lang = document.documentElement.lang.slice(0, 35);
  port.postMessage({ type: 'request', id, method, params, ...(lang ? { lang } : {}) });
});
