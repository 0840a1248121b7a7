import type { EventAttemptRecord } from '../state/outbox.ts';
import { KASSA_VERSION } from '../version.ts';
import type { SignedHeaders } from './event-signer.ts';
import { retryAfterMs } from './retry-after.ts';

/** One attempt at a receiver, as recorded, and the Retry-After its 429 or 503 asked for. */
export interface PostedAttempt extends EventAttemptRecord {
  retryAfterMs: number | undefined;
  delivered: boolean;
}

/**
 * Posts one signed event to a receiver, within `timeoutMs`: any 2xx delivers it; a redirect is not
 * followed, a 410 Gone is said to be final, and a 429's or 503's Retry-After is read. Never throws.
 */
export async function postEvent(
  url: string,
  headers: SignedHeaders,
  payload: string,
  timeoutMs: number,
): Promise<PostedAttempt> {
  const at = Date.now();
  const started = performance.now();
  let statusCode: number | null = null;
  let error: string | null = null;
  let retryAfter: number | undefined;
  try {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': `Kassa/${KASSA_VERSION}`, ...headers },
      body: payload,
      redirect: 'manual',
      signal: AbortSignal.timeout(timeoutMs),
    });
    statusCode = response.status;
    await response.body?.cancel();
    if (statusCode >= 300 && statusCode < 400) error = `HTTP ${statusCode}: redirects are not followed`;
    if (statusCode === 410) error = 'HTTP 410 Gone: the receiver wants no more events; not retried';
    if (statusCode === 429 || statusCode === 503)
      retryAfter = retryAfterMs(response.headers.get('retry-after'), Date.now());
  } catch (cause) {
    error = describeFailure(cause, timeoutMs);
  }
  return {
    at,
    durationMs: Math.round((performance.now() - started) * 10) / 10,
    statusCode,
    error,
    retryAfterMs: retryAfter,
    delivered: statusCode !== null && statusCode >= 200 && statusCode < 300,
  };
}

/** A failed attempt in words, for the operator: no answer in time, or why no connection was made. */
function describeFailure(cause: unknown, timeoutMs: number): string {
  if (cause instanceof Error && (cause.name === 'TimeoutError' || cause.name === 'AbortError'))
    return `no answer within ${timeoutMs / 1000} s`;
  const inner = cause instanceof Error ? (cause.cause as { code?: string; message?: string } | undefined) : undefined;
  const reason = inner?.code ?? inner?.message ?? (cause instanceof Error ? cause.message : String(cause));
  return `could not deliver: ${reason}`;
}
