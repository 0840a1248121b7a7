/**
 * How the service worker answers the extension's own pages (popup, side panel, approval window): each
 * background area offers a part of the handler table (settings-handlers.ts, operator-handlers.ts,
 * wallet-handlers.ts, approval-handlers.ts), one handler for each kind of request, typed by the kind
 * (extension/messages.ts: `uiRequestSchema` and `UiAnswers`); the service worker puts the parts
 * together, and a table that misses a kind does not compile.
 */
import { describeZodError } from '../../lib/zod-message.ts';
import {
  UI_CHANNEL,
  uiRequestSchema,
  USER_ACTIONS,
  type UiAnswers,
  type UiKind,
  type UiRequestOf,
  type UiResponse,
} from '../messages.ts';

export type UiHandler<K extends UiKind> = (request: UiRequestOf<K>) => Promise<UiAnswers[K]>;
export type UiHandlers = { [K in UiKind]: UiHandler<K> };

/** A request the worker refuses for what it asks (its message is the page's error). */
export class RefusedRequest extends Error {}

const EXTENSION_ORIGIN = new URL(chrome.runtime.getURL('')).origin;

/** A sender that is a page of this extension (popup, side panel, approval window), never a content script. */
export function isExtensionPage(sender: chrome.runtime.MessageSender): boolean {
  return (
    sender.id === chrome.runtime.id && typeof sender.url === 'string' && new URL(sender.url).origin === EXTENSION_ORIGIN
  );
}

function dispatch<K extends UiKind>(handlers: UiHandlers, request: UiRequestOf<K>): Promise<UiAnswers[K]> {
  const handler: UiHandler<K> = handlers[request.kind];
  return handler(request);
}

/**
 * The runtime message listener: a request is answered only when it comes from a page of this
 * extension and fits `uiRequestSchema`; `onUserAction` runs first for what a person does (USER_ACTIONS).
 */
export function answerUiRequests(options: { handlers: UiHandlers; onUserAction: () => Promise<void> }) {
  return (message: unknown, sender: chrome.runtime.MessageSender, sendResponse: (response: UiResponse) => void) => {
    const envelope = message as { channel?: unknown; request?: unknown } | null;
    if (!envelope || envelope.channel !== UI_CHANNEL) return false;
    if (!isExtensionPage(sender)) {
      sendResponse({ ok: false, error: 'Only Kassa’s own pages may ask this' });
      return false;
    }
    const parsed = uiRequestSchema.safeParse(envelope.request);
    if (!parsed.success) {
      sendResponse({ ok: false, error: describeZodError(parsed.error) });
      return false;
    }
    const request = parsed.data;
    // What the user does in Kassa's own pages is activity: the idle lock starts counting again. Reads
    // and polls (the Wallet tab's activity every few seconds) are not.
    const activity = USER_ACTIONS.has(request.kind) ? options.onUserAction() : Promise.resolve();
    activity
      .then(() => dispatch(options.handlers, request))
      .then(
        (value) => sendResponse({ ok: true, value }),
        (error: unknown) =>
          sendResponse({
            ok: false,
            error: error instanceof Error ? error.message : String(error),
            status: (error as { status?: number }).status,
            permission: (error as { permission?: string }).permission,
          }),
      );
    return true;
  };
}
