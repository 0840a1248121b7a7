import type { ErrorHandler } from 'hono';
import {
  DomainError,
  UnauthenticatedError,
  type DomainErrorKind,
  type UpstreamFailedError,
} from '../domain/domain-errors.ts';
import type { Logger } from '../logger.ts';
import { StoreUnavailableError } from '../state/store.ts';
import { HttpProblem } from './http-problem.ts';

/**
 * The one place where errors become answers: a domain error's kind is a status, `retryAfterSeconds`
 * a Retry-After header, and the message the `{error}` (with `details` beside it when there are any).
 */
const STATUS_OF: Record<Exclude<DomainErrorKind, 'upstream-failed'>, HttpProblem['status']> = {
  unauthenticated: 401,
  'invalid-input': 400,
  'not-allowed': 403,
  'not-found': 404,
  conflict: 409,
  gone: 410,
  refused: 422,
  limited: 429,
  misconfigured: 500,
  'untrusted-answer': 502,
  'upstream-unavailable': 503,
};

/** How an upstream failure is told to its audience (see UpstreamAudience). */
function upstreamProblem({ failure, audience }: UpstreamFailedError): HttpProblem {
  const retryAfter = Math.max(1, Math.ceil((failure.details.retryAfterMs ?? 5_000) / 1000));
  switch (failure.failure) {
    case 'rate_limited':
      return new HttpProblem(429, `Too many requests right now; try again in ${retryAfter} s`, {
        'Retry-After': String(retryAfter),
      });
    case 'credentials':
      return audience === 'customer'
        ? new HttpProblem(503, 'Payments are unavailable right now. Please try again later.', { 'Retry-After': '60' })
        : new HttpProblem(502, `${failure.message}; the operator should check the proxy's health`);
    case 'unavailable':
      return new HttpProblem(
        502,
        audience === 'customer' ? 'The bank payment service is not answering. Please try again.' : failure.message,
        { 'Retry-After': '5' },
      );
    case 'rejected':
      return audience === 'customer'
        ? new HttpProblem(502, `The payment service refused this payment: ${failure.message}`)
        : new HttpProblem(400, failure.message);
  }
}

/** The answer to a domain error. */
export function domainProblem(error: DomainError): HttpProblem {
  if (error.kind === 'upstream-failed') return upstreamProblem(error as UpstreamFailedError);
  const headers: Record<string, string> =
    error.retryAfterSeconds === undefined ? {} : { 'Retry-After': String(error.retryAfterSeconds) };
  if (error instanceof UnauthenticatedError) headers['WWW-Authenticate'] = `Bearer realm="${error.realm}"`;
  return new HttpProblem(STATUS_OF[error.kind], error.message, headers, error.details, error.fields);
}

/** An error as the proxy answers it, and the log line it is worth (none for what the caller caused). */
export interface ErrorAnswer {
  problem: HttpProblem;
  log?: { level: 'info' | 'warn' | 'error'; message: string; error?: Error };
}

export function errorAnswer(error: Error): ErrorAnswer {
  if (error instanceof HttpProblem) return { problem: error };
  if (error instanceof DomainError) return { problem: domainProblem(error) };
  if (error instanceof StoreUnavailableError)
    return {
      problem: new HttpProblem(503, 'Kassa cannot reach its store right now; try again in a moment', {
        'Retry-After': '2',
      }),
      log: { level: 'warn', message: 'store unavailable', error },
    };
  // The client hung up while sending: nothing went wrong in the proxy, and no one reads the answer.
  if (isClientAbort(error))
    return {
      problem: new HttpProblem(400, 'The request was aborted before its body arrived'),
      log: { level: 'info', message: 'request aborted by the client' },
    };
  return {
    problem: new HttpProblem(500, 'Internal error'),
    log: { level: 'error', message: 'unhandled error', error },
  };
}

/** The app's error handler: every error is `{ "error": "…" }` with its status and headers. */
export function answerErrors(logger: Logger): ErrorHandler {
  return function answerError(error, c) {
    const { problem, log } = errorAnswer(error);
    if (log)
      logger[log.level](log.message, {
        ...(log.error ? { error: log.error } : {}),
        method: c.req.method,
        path: c.req.routePath,
      });
    for (const [name, value] of Object.entries(problem.headers)) c.header(name, value);
    return c.json(
      {
        error: problem.message,
        ...(problem.details === undefined ? {} : { details: problem.details }),
        ...problem.fields,
      },
      problem.status,
    );
  };
}

/** A request body cut off by the client (Node's `aborted`, a reset connection), not a proxy fault. */
function isClientAbort(error: Error): boolean {
  const code = (error as Error & { code?: unknown }).code;
  return error.message === 'aborted' || code === 'ECONNRESET' || code === 'ERR_STREAM_PREMATURE_CLOSE';
}
