export type UpstreamService = 'pay' | 'orders' | 'reforge';

/**
 * Why an upstream call failed, in the terms the proxy acts on:
 * - rejected: the service refused the request itself (4xx with its message); retrying will not help;
 * - credentials: the service refused Kassa's credentials (invalid_client, account_frozen, a bad API key);
 * - rate_limited: 429, or Kassa's own budget is spent; `retryAfterMs` says when to come back;
 * - unavailable: 5xx, timeout, reset or an unreadable answer; worth a retry.
 */
export type UpstreamFailure = 'rejected' | 'credentials' | 'rate_limited' | 'unavailable';

export class UpstreamError extends Error {
  constructor(
    readonly service: UpstreamService,
    readonly failure: UpstreamFailure,
    message: string,
    readonly details: {
      status?: number;
      retryAfterMs?: number;
      upstreamMessage?: string;
      /** False when the request certainly never left this process (the connection was refused). */
      requestSent?: boolean;
    } = {},
  ) {
    super(message);
    this.name = 'UpstreamError';
  }

  get retryable(): boolean {
    return this.failure === 'unavailable' || this.failure === 'rate_limited';
  }
}

/**
 * The service answered with something other than what was asked for (another payment's record, an
 * amount that is not the payment's): nothing of it is used. Not retried at once: the next reason to
 * read (a webhook, the follower) asks again.
 */
export class UpstreamMismatchError extends UpstreamError {
  constructor(
    service: UpstreamService,
    readonly field: string,
    operation: string,
  ) {
    super(
      service,
      'unavailable',
      `The ${service} service answered ${operation} with a record that does not match: ${field}`,
    );
    this.name = 'UpstreamMismatchError';
  }

  override get retryable(): boolean {
    return false;
  }
}

/** Retry-After in seconds (or an HTTP date) as milliseconds; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}
