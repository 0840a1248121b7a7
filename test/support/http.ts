/** A JSON answer as a test reads it, field by field: asserting on it is the check. */
export type Json = ReturnType<typeof JSON.parse>;

/** Plain HTTP for tests: the status, the headers and the body parsed as JSON when it is JSON. */
export interface HttpResult<T = Json> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export interface HttpInit {
  method?: string;
  body?: unknown;
  headers?: Record<string, string>;
  raw?: string;
  /** Gives up (rejects with a TimeoutError) when no complete answer came in this long. */
  timeoutMs?: number;
}

export async function http<T = Json>(url: string, init: HttpInit = {}): Promise<HttpResult<T>> {
  const headers: Record<string, string> = { ...init.headers };
  let body: string | undefined = init.raw;
  if (init.body !== undefined) {
    body = JSON.stringify(init.body);
    headers['Content-Type'] ??= 'application/json';
  }
  const response = await fetch(url, {
    method: init.method ?? (body === undefined ? 'GET' : 'POST'),
    headers,
    body,
    redirect: 'manual',
    signal: init.timeoutMs === undefined ? undefined : AbortSignal.timeout(init.timeoutMs),
  });
  const text = await response.text();
  let parsed: unknown = text;
  if ((response.headers.get('content-type') ?? '').includes('json')) {
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = text;
    }
  }
  return { status: response.status, headers: response.headers, body: parsed as T, text };
}
