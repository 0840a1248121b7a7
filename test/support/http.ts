import { request, type IncomingHttpHeaders } from 'node:http';
import { PATIENCE_MS } from './patience.ts';

/** A JSON answer as a test reads it, field by field: asserting on it is the check. */
export type Json = ReturnType<typeof JSON.parse>;

/** Plain HTTP for tests: the status, the headers and the body parsed as JSON when it is JSON. */
export interface HttpResult<T = Json> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

/** An answer as the helper read it, with what was asked, for observers (api-conformance.ts). */
export interface Answered extends HttpResult<unknown> {
  origin: string;
  method: string;
  /** The URL's path, without the query. */
  path: string;
}

const observers: Array<(answer: Answered) => Promise<void> | void> = [];

/** Calls `observer` with every answer the helper reads; what it throws, the helper throws. */
export function onAnswer(observer: (answer: Answered) => Promise<void> | void): void {
  observers.push(observer);
}

export interface HttpInit {
  method?: string;
  body?: unknown;
  headers?: Record<string, string>;
  raw?: string;
  /**
   * Gives up (rejects with a TimeoutError) when no complete answer came in this long; PATIENCE_MS by
   * default, so that a request a server never answers fails naming itself instead of hanging the run.
   */
  timeoutMs?: number;
}

export async function http<T = Json>(url: string, init: HttpInit = {}): Promise<HttpResult<T>> {
  const headers: Record<string, string> = { ...init.headers };
  let body: string | undefined = init.raw;
  if (init.body !== undefined) {
    body = JSON.stringify(init.body);
    headers['Content-Type'] ??= 'application/json';
  }
  const method = init.method ?? (body === undefined ? 'GET' : 'POST');
  const timeoutMs = init.timeoutMs ?? PATIENCE_MS;
  const answer = async () => {
    const response = await fetch(url, {
      method,
      headers,
      body,
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    return { response, text: await response.text() };
  };
  const { response, text } = await answer().catch((error: unknown) => {
    if (error instanceof Error && error.name === 'TimeoutError')
      throw new Error(`${method} ${url}: no complete answer within ${timeoutMs} ms`, { cause: error });
    throw error;
  });
  let parsed: unknown = text;
  if ((response.headers.get('content-type') ?? '').includes('json')) {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
  }
  const result = { status: response.status, headers: response.headers, body: parsed as T, text };
  if (observers.length) {
    const { origin, pathname } = new URL(url);
    for (const observer of observers) await observer({ ...result, origin, method, path: pathname });
  }
  return result;
}

/** A GET as it goes on the wire: the body's bytes as sent (fetch would decode a Content-Encoding). */
export function rawGet(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; headers: IncomingHttpHeaders; body: Buffer }> {
  return new Promise((resolve, reject) => {
    request(url, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
      );
      response.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}
