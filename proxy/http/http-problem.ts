/**
 * An answer the proxy gives on purpose: a status, a message for `{error}`, and headers such as
 * Retry-After. Routes throw it; the app's error handler renders it.
 */
export class HttpProblem extends Error {
  constructor(
    readonly status: 400 | 401 | 403 | 404 | 409 | 410 | 413 | 415 | 422 | 429 | 500 | 502 | 503 | 504,
    message: string,
    readonly headers: Record<string, string> = {},
    readonly details?: unknown,
    /** More top-level fields of the `{error}` body, such as the `permission` a 403 names. */
    readonly fields?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'HttpProblem';
  }
}
