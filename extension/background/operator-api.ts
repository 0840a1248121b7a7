import { requireOperator, SettingsError } from './settings.ts';

const TIMEOUT_MS = 20_000;

/** A refusal or failure of the proxy, with its own words when it gave any (`{error}`). */
export class ProxyCallError extends Error {
  constructor(
    message: string,
    /** The HTTP status; 0 when there was no answer. */
    readonly status: number,
  ) {
    super(message);
    this.name = 'ProxyCallError';
  }
}

/** Sends one request to an operator route of the configured proxy, with the operator token. */
async function send(path: string, init: { method?: string; body?: unknown; accept: string }): Promise<Response> {
  const { proxyUrl, operatorToken } = await requireOperator();
  try {
    return await fetch(`${proxyUrl}${path}`, {
      method: init.method ?? 'GET',
      headers: {
        Authorization: `Bearer ${operatorToken}`,
        Accept: init.accept,
        ...(init.body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      cache: 'no-store',
      credentials: 'omit',
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
  } catch (error) {
    throw new ProxyCallError(`Cannot reach the proxy at ${proxyUrl}: ${(error as Error).message}`, 0);
  }
}

/** The refusal of an error answer, in the proxy's own words when it gave any. */
function refusal(response: Response, body: { error?: unknown } | undefined): ProxyCallError {
  if (response.status === 401)
    return new ProxyCallError('The proxy refused the operator token (401): check it in Settings', 401);
  return new ProxyCallError(
    typeof body?.error === 'string' ? body.error : `The proxy answered HTTP ${response.status}`,
    response.status,
  );
}

/**
 * One call to an operator route of the configured proxy, with the operator token. An error answer's
 * `{error}` becomes the message word for word (the order service's own refusals reach the operator
 * exactly as it gave them).
 */
export async function operatorCall<T>(path: string, init: { method?: string; body?: unknown } = {}): Promise<T> {
  const response = await send(path, { ...init, accept: 'application/json' });
  const body = (await response.json().catch(() => undefined)) as { error?: unknown } | undefined;
  if (response.ok && body !== undefined) return body as T;
  throw refusal(response, body);
}

/**
 * A file an operator route answers (the payments' CSV export): its text and the file name its
 * Content-Disposition gives, kept to letters, digits, dots and dashes.
 */
export async function operatorFile(path: string, accept: string): Promise<{ filename: string; text: string }> {
  const response = await send(path, { accept });
  if (!response.ok) throw refusal(response, (await response.json().catch(() => undefined)) as { error?: unknown });
  const named = /filename="?([^";]+)"?/i.exec(response.headers.get('Content-Disposition') ?? '')?.[1];
  const filename = named?.replace(/[^\w.-]/g, '_') || 'kassa-export';
  return { filename, text: await response.text() };
}

/**
 * Follows `GET /api/payments/events` (Server-Sent Events) with the operator token, which EventSource
 * cannot send: a streamed fetch, parsed by hand. Calls `onStatus` with each `status` event's data and
 * `onState` as the stream goes live, drops (and is retried after `retryMs`) or cannot start. Returns a
 * function that stops it.
 */
export function followPaymentEvents(handlers: {
  onStatus(payment: Record<string, unknown>): void;
  onState(state: 'live' | 'reconnecting' | 'unavailable', error?: string): void;
}): () => void {
  const controller = new AbortController();
  let retryMs = 3_000;
  const run = async (): Promise<void> => {
    while (!controller.signal.aborted) {
      try {
        const { proxyUrl, operatorToken } = await requireOperator();
        const response = await fetch(`${proxyUrl}/api/payments/events`, {
          headers: { Authorization: `Bearer ${operatorToken}`, Accept: 'text/event-stream' },
          cache: 'no-store',
          credentials: 'omit',
          signal: controller.signal,
        });
        if (!response.ok || !response.body) {
          const body = (await response.json().catch(() => undefined)) as { error?: string } | undefined;
          throw new ProxyCallError(body?.error ?? `HTTP ${response.status}`, response.status);
        }
        handlers.onState('live');
        await readEvents(
          response.body,
          (event, data) => {
            if (event === 'status') {
              try {
                const payment = JSON.parse(data) as unknown;
                if (payment && typeof payment === 'object') handlers.onStatus(payment as Record<string, unknown>);
              } catch {
                // not JSON: not a status event of the proxy
              }
            }
          },
          (ms) => (retryMs = ms),
        );
        if (!controller.signal.aborted) handlers.onState('reconnecting');
      } catch (error) {
        if (controller.signal.aborted) return;
        const refused =
          error instanceof SettingsError ||
          (error instanceof ProxyCallError && error.status >= 400 && error.status < 500);
        handlers.onState(refused ? 'unavailable' : 'reconnecting', (error as Error).message);
        if (refused) return;
      }
      await new Promise((resolve) => setTimeout(resolve, retryMs));
    }
  };
  void run();
  return () => controller.abort();
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
