import { request, type IncomingHttpHeaders } from 'node:http';

/** A JSON answer as a test reads it, field by field: asserting on it is the check. */
export type Json = ReturnType<typeof JSON.parse>;

/** Plain HTTP for tests: the status, the headers and the body parsed as JSON when it is JSON. */
export interface HttpResult<T = Json> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export async function http<T = Json>(
  url: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string>; raw?: string } = {},
): Promise<HttpResult<T>> {
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
