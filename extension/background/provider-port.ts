/**
 * A page's provider port (its content script's): who may open one, and how its requests are answered.
 * The page's origin is the port's sender's, never anything the page says. A request that cannot
 * reach a chain is answered 4900 when no chain answers at all (the pages hear `disconnect` first),
 * 4901 when only the wallet's chain does not; one that reached a chain while pages thought none did
 * comes after `connect`.
 */
import { ProviderRpcError, RPC, toRpcError, type RpcErrorJson } from '../eip1193.ts';
import { MAX_PARAMS_JSON, portRequestSchema, type PortRequest } from '../page-messages.ts';
import { rejectWhere } from './approvals.ts';
import { checkLink, linkDown, tellLink } from './chain-link.ts';
import { addPagePort, removePagePort } from './page-ports.ts';
import { handleProviderRequest } from './provider.ts';
import { READ_METHODS } from './rpc.ts';

/** The page's origin, when `sender` is this extension's content script in a tab's top frame of an http(s) page. */
function pageOrigin(sender: chrome.runtime.MessageSender | undefined): string | undefined {
  const url = sender?.url ? new URL(sender.url) : undefined;
  if (
    sender?.id !== chrome.runtime.id ||
    !sender.tab ||
    sender.frameId !== 0 ||
    !url ||
    !/^https?:$/.test(url.protocol)
  )
    return undefined;
  // The page's own origin, never its URL's: a sandboxed document (CSP sandbox, a sandboxed frame's
  // page) has an opaque origin ('null') and gets no provider at all, so nothing it asks is shown as
  // asked by the site that served it.
  const origin = sender.origin;
  return origin && /^https?:\/\/[^/]+$/.test(origin) ? origin : undefined;
}

async function answer(
  origin: string,
  { method, params, lang }: PortRequest,
): Promise<{ result: unknown } | { error: RpcErrorJson }> {
  if (params !== undefined && JSON.stringify(params).length > MAX_PARAMS_JSON)
    return { error: { code: RPC.invalidParams, message: 'The request is too large' } };
  try {
    const result = await handleProviderRequest(origin, method, params, lang);
    if (linkDown() && (READ_METHODS.has(method) || method === 'eth_sendTransaction')) await checkLink();
    return { result: result ?? null };
  } catch (error) {
    if (error instanceof ProviderRpcError && error.code === RPC.chainDisconnected && !(await checkLink()).connected)
      return { error: { ...error.toJSON(), code: RPC.disconnected } };
    return { error: toRpcError(error) };
  }
}

export function acceptProviderPort(port: chrome.runtime.Port): void {
  const origin = pageOrigin(port.sender);
  if (!origin) return port.disconnect();
  addPagePort(port, origin);
  port.onDisconnect.addListener(() => {
    // The page is gone: nothing may still be signed for it unless another of its pages is open.
    if (!removePagePort(port))
      rejectWhere((request) => request.origin === origin, new ProviderRpcError(RPC.disconnected, 'The page closed'));
  });
  // The page hears where Kassa stands before any answer.
  const told = tellLink(port);
  port.onMessage.addListener((message: unknown) => {
    const parsed = portRequestSchema.safeParse(message);
    if (!parsed.success) return;
    void told
      .then(() => answer(origin, parsed.data))
      .then((body) => {
        try {
          port.postMessage({ type: 'response', id: parsed.data.id, ...body });
        } catch {
          // the page went away
        }
      });
  });
}
