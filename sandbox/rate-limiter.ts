import type { SandboxClock } from './clock.ts';

/**
 * A sliding one-window limit per bucket ("10 requests per minute"): a request is allowed when fewer
 * than `limit` requests were allowed in the last `windowMs`. Rejected requests do not count, so a
 * client that backs off for Retry-After seconds always gets through.
 */
export class SlidingWindowLimiter {
  private readonly hits = new Map<string, number[]>();

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly clock: SandboxClock,
  ) {}

  /** Records a hit when allowed; otherwise says how many whole seconds until one is. */
  take(bucket: string): { allowed: true } | { allowed: false; retryAfterSeconds: number } {
    const now = this.clock.now();
    const recent = (this.hits.get(bucket) ?? []).filter((at) => at > now - this.windowMs);
    if (recent.length >= this.limit) {
      this.hits.set(bucket, recent);
      const oldest = recent[0]!;
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((oldest + this.windowMs - now) / 1000)) };
    }
    recent.push(now);
    this.hits.set(bucket, recent);
    return { allowed: true };
  }
}
