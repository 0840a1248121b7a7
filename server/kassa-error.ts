/**
 * The errors kassa/server throws: a typed class per side, so a merchant's code can tell a refused call
 * to the proxy from an event that must be refused.
 */

/**
 * A call to the proxy that did not succeed. `status` is the proxy's status code (0 when no answer
 * came: unreachable, timed out); `message` is the proxy's own `error`; `details` what it added.
 */
export class KassaError extends Error {
  override readonly name = 'KassaError';
  readonly status: number;
  readonly details: unknown;

  constructor(status: number, message: string, details?: unknown) {
    super(message);
    this.status = status;
    this.details = details;
  }
}

/** Why an event was refused; each is the sender's fault or a misconfigured secret, never a reason to retry. */
export type KassaEventErrorReason = 'headers' | 'timestamp' | 'signature' | 'secret' | 'body';

/**
 * An event that must not be acted on. Answer it with a 4xx (400 or 401): a genuine event is signed
 * correctly, so only a forged, stale or misrouted one lands here.
 */
export class KassaEventError extends Error {
  override readonly name = 'KassaEventError';
  readonly reason: KassaEventErrorReason;

  constructor(reason: KassaEventErrorReason, message: string) {
    super(message);
    this.reason = reason;
  }
}
