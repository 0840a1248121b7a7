/**
 * The proxy's live stream of every payment's change (`GET /api/payments/events`), followed once for all
 * the pages listening: the payments view's rows change with it, and the popup's and side panel's
 * shells keep it open (session-ports.ts) so that the end of the session is known at once. The proxy
 * ends the stream with an `unauthorized` event as soon as this device's token stops working (revoked,
 * expired, its owner suspended or removed), whichever instance of a fleet that happened on; a 401 when
 * it starts says the same. Either ends the session (operator-api.ts's `refusal`).
 */
import { ProxyCallError, refusal } from './operator-api.ts';
import { onSessionChange, requireOperator, storedSession } from './operator-session.ts';
import { SettingsError } from './settings.ts';

export type StreamState = 'live' | 'reconnecting' | 'unavailable';

export interface PaymentListener {
  onStatus?(payment: Record<string, unknown>): void;
  onState(state: StreamState, error?: string): void;
}

const listeners = new Set<PaymentListener>();
let last: { state: StreamState; error?: string } = { state: 'reconnecting' };
let running: { stop(): void; token?: string } | undefined;

function tell(state: StreamState, error?: string): void {
  last = { state, ...(error ? { error } : {}) };
  for (const listener of listeners) listener.onState(state, error);
}

/** Starts following the stream (again), with the session there is now. */
function restart(): void {
  running?.stop();
  const controller = new AbortController();
  const current: { stop(): void; token?: string } = { stop: () => controller.abort() };
  running = current;
  tell('reconnecting');
  void follow(controller.signal, current);
}

/** Hears every payment's change and the stream's state (at once, then as it changes) until the function returned is called. */
export function listenToPayments(listener: PaymentListener): () => void {
  listeners.add(listener);
  if (running) listener.onState(last.state, last.error);
  else restart();
  return () => {
    listeners.delete(listener);
    if (listeners.size) return;
    running?.stop();
    running = undefined;
  };
}

// Signed in again, or out: a stream that listeners wait on follows the new session.
onSessionChange(() => {
  if (!listeners.size) return;
  void storedSession().then((session) => {
    if (listeners.size && session?.token !== running?.token) restart();
  });
});

/**
 * Follows the stream with this device's token, which EventSource cannot send: a streamed fetch, parsed
 * by hand; after a drop it is retried after the proxy's `retry:` delay; a refusal stops it.
 */
async function follow(signal: AbortSignal, current: { token?: string }): Promise<void> {
  let retryMs = 3_000;
  while (!signal.aborted) {
    try {
      const { proxyUrl, token } = await requireOperator();
      current.token = token;
      const response = await fetch(`${proxyUrl}/api/payments/events`, {
        headers: { Authorization: `Bearer ${token}`, Accept: 'text/event-stream' },
        cache: 'no-store',
        credentials: 'omit',
        signal,
      });
      if (!response.ok || !response.body)
        throw await refusal(response.status, await response.json().catch(() => undefined), token);
      tell('live');
      let unauthorized: unknown;
      await readEvents(
        response.body,
        (event, data) => {
          if (event === 'status') {
            const payment = parsed(data);
            if (payment) for (const listener of listeners) listener.onStatus?.(payment);
          } else if (event === 'unauthorized') unauthorized = parsed(data) ?? {};
        },
        (ms) => (retryMs = ms),
      );
      if (unauthorized !== undefined) throw await refusal(401, unauthorized, token);
      if (!signal.aborted) tell('reconnecting');
    } catch (error) {
      if (signal.aborted) return;
      const refused =
        error instanceof SettingsError ||
        (error instanceof ProxyCallError && error.status >= 400 && error.status < 500);
      tell(refused ? 'unavailable' : 'reconnecting', (error as Error).message);
      if (refused) return;
    }
    await new Promise((resolve) => setTimeout(resolve, retryMs));
  }
}

/** An event's data as a JSON object; undefined for anything else (not the proxy's). */
function parsed(data: string): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(data) as unknown;
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

/** Reads an SSE body: `event:`/`data:` fields, blank-line separated; `retry:` updates the delay. */
async function readEvents(
  body: ReadableStream<Uint8Array>,
  onEvent: (event: string, data: string) => void,
  onRetry: (ms: number) => void,
): Promise<void> {
  const reader = body
    .pipeThrough(new TextDecoderStream() as unknown as ReadableWritablePair<string, Uint8Array>)
    .getReader();
  let buffer = '';
  let event = 'message';
  let data: string[] = [];
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += value;
    let newline: number;
    while ((newline = buffer.search(/\r\n|\r|\n/)) !== -1) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + (buffer.startsWith('\r\n', newline) ? 2 : 1));
      if (line === '') {
        if (data.length) onEvent(event, data.join('\n'));
        event = 'message';
        data = [];
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon === -1 ? line : line.slice(0, colon);
      const text = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'event') event = text;
      else if (field === 'data') data.push(text);
      else if (field === 'retry' && /^\d+$/.test(text)) onRetry(Number(text));
    }
  }
}
