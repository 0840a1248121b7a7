import { UpstreamError } from '../upstream/upstream-error.ts';

/**
 * What the proxy's domain code throws when it refuses, or cannot do, what was asked: a kind, the
 * message the caller reads (English, the `{error}` of the answer) and what the caller may act on. Which
 * status, which headers: that is the HTTP edge's business (http/error-answers.ts), so the same refusal
 * reads the same from every route, and domain code knows no HTTP.
 */
export type DomainErrorKind =
  | 'unauthenticated'
  | 'invalid-input'
  | 'not-allowed'
  | 'not-found'
  | 'conflict'
  | 'gone'
  | 'refused'
  | 'limited'
  | 'misconfigured'
  | 'untrusted-answer'
  | 'upstream-unavailable'
  | 'upstream-failed';

export interface DomainErrorOptions {
  /** The refusal ends by itself: worth asking again after this many seconds. */
  retryAfterSeconds?: number;
  /** Facts beside the message (which bound, how much is left), for a page to put in its customer's language. */
  details?: unknown;
  /** What a client acts on, at the answer's top level beside `error` (the `permission` a 403 names). */
  fields?: Record<string, unknown>;
}

export abstract class DomainError extends Error {
  abstract readonly kind: DomainErrorKind;
  readonly retryAfterSeconds: number | undefined;
  readonly details: unknown;
  readonly fields: Record<string, unknown> | undefined;

  constructor(message: string, options: DomainErrorOptions = {}) {
    super(message);
    this.retryAfterSeconds = options.retryAfterSeconds;
    this.details = options.details;
    this.fields = options.fields;
  }
}

/** No credential, or one that opens nothing now: the caller must present one (`realm` names what is wanted). */
export class UnauthenticatedError extends DomainError {
  readonly kind = 'unauthenticated';
  override name = 'UnauthenticatedError';

  constructor(
    message: string,
    readonly realm: string,
  ) {
    super(message);
  }
}

/** The request's values cannot be used as they are (a return URL the shop does not allow, an amount out of bounds, a signature that proves nothing): the caller must change them. */
export class InvalidInputError extends DomainError {
  readonly kind = 'invalid-input';
  override name = 'InvalidInputError';
}

/** The shop does not allow this at all (a mode it has not enabled). */
export class NotAllowedError extends DomainError {
  readonly kind = 'not-allowed';
  override name = 'NotAllowedError';
}

/** What the request names does not exist, or is not the caller's to know of. */
export class NotFoundError extends DomainError {
  readonly kind = 'not-found';
  override name = 'NotFoundError';
}

/** It exists, but its state does not allow this (already paid, changed meanwhile; being worked on: then `retryAfterSeconds`). */
export class ConflictError extends DomainError {
  readonly kind = 'conflict';
  override name = 'ConflictError';
}

/** It existed, and its time is over (an expired checkout or quote). */
export class GoneError extends DomainError {
  readonly kind = 'gone';
  override name = 'GoneError';
}

/** Understood, and refused for the reason the message states (a limit, what is offered, a key reused for another request); `details` carries the reason for pages. */
export class RefusedError extends DomainError {
  readonly kind = 'refused';
  override name = 'RefusedError';
}

/** Asked too often lately (failed sign-ins, say): refused until `retryAfterSeconds` have passed. */
export class LimitedError extends DomainError {
  readonly kind = 'limited';
  override name = 'LimitedError';

  constructor(message: string, retryAfterSeconds: number) {
    super(message, { retryAfterSeconds });
  }
}

/** Kassa's own settings or requests are wrong: nothing the caller can change (logged where it is thrown). */
export class MisconfiguredError extends DomainError {
  readonly kind = 'misconfigured';
  override name = 'MisconfiguredError';
}

/** An upstream service answered with something Kassa will not pass on (a payment page on a host the shop does not trust). */
export class UntrustedAnswerError extends DomainError {
  readonly kind = 'untrusted-answer';
  override name = 'UntrustedAnswerError';
}

/** Something Kassa must ask (a wallet's chain) could not be asked now: worth asking again after `retryAfterSeconds`. */
export class UpstreamUnavailableError extends DomainError {
  readonly kind = 'upstream-unavailable';
  override name = 'UpstreamUnavailableError';

  constructor(message: string, retryAfterSeconds: number) {
    super(message, { retryAfterSeconds });
  }
}

/**
 * Who reads the answer to a failed upstream call: a shop's customer gets plain words and never learns
 * why Kassa's credentials were refused (that is for the operator's health page and logs); a client (the
 * operator's console, the wallet panel) reads the service's own refusal, which it needs to fix its input.
 */
export type UpstreamAudience = 'customer' | 'client';

/** An upstream call failed (refused, rate limited, unreachable, credentials refused), told to `audience`. */
export class UpstreamFailedError extends DomainError {
  readonly kind = 'upstream-failed';
  override name = 'UpstreamFailedError';

  constructor(
    readonly failure: UpstreamError,
    readonly audience: UpstreamAudience,
  ) {
    super(failure.message);
  }
}

/** The error to throw for a failed upstream call: an UpstreamError told to `audience`, anything else as it is. */
export const upstreamFailure = (error: unknown, audience: UpstreamAudience): unknown =>
  error instanceof UpstreamError ? new UpstreamFailedError(error, audience) : error;

/** Runs an upstream call; its failure is told to `audience`. */
export async function callUpstream<T>(audience: UpstreamAudience, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw upstreamFailure(error, audience);
  }
}
