import { setTimeout as sleep } from 'node:timers/promises';
import { UpstreamError } from './upstream-error.ts';

export interface RetryPolicy {
  /** Attempts in all, the first included. */
  attempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** No retry starts after this many ms from the first attempt. */
  deadlineMs: number;
}

export const READ_RETRIES: RetryPolicy = { attempts: 4, baseDelayMs: 200, maxDelayMs: 4_000, deadlineMs: 20_000 };

/**
 * Runs `operation` again after retryable upstream failures, waiting an exponential backoff with full
 * jitter (so many clients do not retry in step), and never less than the service's Retry-After.
 */
export async function withRetries<T>(operation: (attempt: number) => Promise<T>, policy: RetryPolicy): Promise<T> {
  const started = Date.now();
  for (let attempt = 1; ; attempt++) {
    try {
      return await operation(attempt);
    } catch (error) {
      if (!(error instanceof UpstreamError) || !error.retryable || attempt >= policy.attempts) throw error;
      const backoff = Math.random() * Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (attempt - 1));
      const delay = Math.max(backoff, error.details.retryAfterMs ?? 0);
      if (Date.now() - started + delay > policy.deadlineMs) throw error;
      await sleep(delay);
    }
  }
}
