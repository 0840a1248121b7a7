/** Whether a request may go ahead; when not, how many whole seconds until one may. */
export type LimitDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/** The allowed hits of one bucket, oldest first from `head`; entries before `head` have left the window. */
interface Hits {
  times: number[];
  head: number;
}

/**
 * A sliding one-window limit per bucket ("10 requests per minute"): a request is allowed when fewer
 * than `limit` requests were allowed in the last `windowMs`. Rejected requests do not count, so a
 * client that backs off for Retry-After seconds always gets through. Buckets idle for a whole window
 * are dropped, so a stream of one-off clients cannot grow the table without bound.
 *
 * Each take is O(1) amortised: hits leave from the front of a queue as they age out, instead of the
 * whole window being filtered per request, which at a high limit (a busy shop behind one NAT) cost
 * the status read more than everything else it does.
 */
export class SlidingWindowLimiter {
  private readonly hits = new Map<string, Hits>();
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
    return this.decide(bucket, true);
  }

  /**
   * Whether a hit would be allowed now, recording nothing: for limits on what went wrong (failed
   * sign-ins), checked before the attempt and taken only when it fails.
   */
  check(bucket: string): LimitDecision {
    return this.decide(bucket, false);
  }

  private decide(bucket: string, record: boolean): LimitDecision {
    const now = this.now();
    if (now - this.lastPrune > this.windowMs) this.prune(now);
    const hits = this.hits.get(bucket) ?? { times: [], head: 0 };
    const { times } = hits;
    while (hits.head < times.length && times[hits.head]! <= now - this.windowMs) hits.head++;
    // Drop the aged-out front now and then, in one move, so the queue stays as long as the window.
    if (hits.head > 1024 && hits.head * 2 > times.length) {
      times.splice(0, hits.head);
      hits.head = 0;
    }
    if (times.length - hits.head >= this.limit) {
      const oldest = times[hits.head]!;
      return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((oldest + this.windowMs - now) / 1000)) };
    }
    if (record) {
      if (!this.hits.has(bucket)) this.hits.set(bucket, hits);
      times.push(now);
    }
    return { allowed: true };
  }

  private prune(now: number): void {
    for (const [bucket, { times }] of this.hits)
      if ((times.at(-1) ?? 0) <= now - this.windowMs) this.hits.delete(bucket);
    this.lastPrune = now;
  }
}
