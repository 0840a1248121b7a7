/** Whether a request may go ahead; when not, how many whole seconds until one may. */
export type LimitDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/**
 * A sliding one-window limit per bucket ("10 requests per minute"): a request is allowed when fewer
 * than `limit` requests were allowed in the last `windowMs`. Rejected requests do not count, so a
 * client that backs off for Retry-After seconds always gets through. Buckets idle for a whole window
 * are dropped, so a stream of one-off clients cannot grow the table without bound.
 */
export class SlidingWindowLimiter {
  private readonly hits = new Map<string, number[]>();
  private lastPrune: number;

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.lastPrune = now();
  }

  /** Records a hit when allowed; otherwise says how long until one is. */
  take(bucket: string): LimitDecision {
    const now = this.now();
    if (now - this.lastPrune > this.windowMs) this.prune(now);
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

  private prune(now: number): void {
    for (const [bucket, times] of this.hits) if ((times.at(-1) ?? 0) <= now - this.windowMs) this.hits.delete(bucket);
    this.lastPrune = now;
  }
}
