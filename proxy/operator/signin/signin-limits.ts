import { SlidingWindowLimiter } from '../../../server-kit/sliding-window.ts';
import { LimitedError } from '../../domain/domain-errors.ts';

/** Failed sign-ins counted over this window. */
export const FAILURE_WINDOW_MS = 15 * 60_000;
/** Failed sign-ins allowed per account, and per client address, within the window. */
export const FAILURE_LIMITS = { account: 5, address: 20 } as const;

/** Too many failed sign-ins lately: for this account or from this address; the answer is a 429. */
export class SigninLimitedError extends LimitedError {
  override name = 'SigninLimitedError';
  declare readonly retryAfterSeconds: number;

  constructor(retryAfterSeconds: number) {
    super(`Too many failed sign-ins; try again in ${retryAfterSeconds} s`, retryAfterSeconds);
  }
}

/**
 * Limits on failed sign-ins, as a sliding window per account and per client address: an attempt is
 * refused while either has failed too often lately, and only failures count, so a person who signs
 * in at the first try is never held up. Kept by each instance: a fleet of n allows n times as many.
 */
export class SigninLimits {
  private readonly accounts: SlidingWindowLimiter;
  private readonly addresses: SlidingWindowLimiter;

  constructor(now: () => number = Date.now) {
    this.accounts = new SlidingWindowLimiter(FAILURE_LIMITS.account, FAILURE_WINDOW_MS, now);
    this.addresses = new SlidingWindowLimiter(FAILURE_LIMITS.address, FAILURE_WINDOW_MS, now);
  }

  /** Whether this address, or this account if known, failed too often lately. */
  blocked(address: string, operatorId?: string | null): boolean {
    return this.wait(address, operatorId) > 0;
  }

  /** The refusal while blocked, with how long until an attempt is let through. */
  refusal(address: string, operatorId?: string | null): SigninLimitedError {
    return new SigninLimitedError(Math.max(1, this.wait(address, operatorId)));
  }

  /** Counts a failed sign-in against the address and, when it named one, the account. */
  failed(address: string, operatorId?: string | null): void {
    this.addresses.take(address);
    if (operatorId) this.accounts.take(operatorId);
  }

  private wait(address: string, operatorId?: string | null): number {
    const decisions = [this.addresses.check(address), ...(operatorId ? [this.accounts.check(operatorId)] : [])];
    return Math.max(0, ...decisions.map((decision) => (decision.allowed ? 0 : decision.retryAfterSeconds)));
  }
}
