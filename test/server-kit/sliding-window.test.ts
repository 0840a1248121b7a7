/**
 * The per-client limit against the plainest model of its rule: a request is allowed when fewer than
 * `limit` allowed requests fall in the last window; refused requests do not count.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { SlidingWindowLimiter } from '../../server-kit/sliding-window.ts';

describe('SlidingWindowLimiter', () => {
  it('decides as the rule does for any sequence of requests, checks, buckets and waits', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }),
        fc.integer({ min: 1, max: 5_000 }),
        fc.array(fc.tuple(fc.constantFrom('a', 'b', 'c'), fc.integer({ min: 0, max: 2_000 }), fc.boolean()), {
          maxLength: 400,
        }),
        (limit, windowMs, requests) => {
          let now = 0;
          const limiter = new SlidingWindowLimiter(limit, windowMs, () => now);
          const allowed = new Map<string, number[]>();
          for (const [bucket, wait, onlyCheck] of requests) {
            now += wait;
            const recent = (allowed.get(bucket) ?? []).filter((at) => at > now - windowMs);
            // A check answers what a take would, and records nothing.
            const decision = onlyCheck ? limiter.check(bucket) : limiter.take(bucket);
            if (recent.length < limit) {
              assert.deepEqual(decision, { allowed: true });
              if (!onlyCheck) recent.push(now);
            } else {
              assert.equal(decision.allowed, false);
              const expected = Math.max(1, Math.ceil((recent[0]! + windowMs - now) / 1000));
              assert.deepEqual(decision, { allowed: false, retryAfterSeconds: expected });
            }
            allowed.set(bucket, recent);
          }
        },
      ),
    );
  });

  it('lets a client that waits Retry-After seconds through', () => {
    let now = 0;
    const limiter = new SlidingWindowLimiter(3, 60_000, () => now);
    for (let i = 0; i < 3; i++) assert.equal(limiter.take('x').allowed, true);
    const refused = limiter.take('x');
    assert.equal(refused.allowed, false);
    now += (refused.allowed ? 0 : refused.retryAfterSeconds) * 1000;
    assert.equal(limiter.take('x').allowed, true);
  });
});
