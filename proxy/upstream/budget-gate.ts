import { setTimeout as sleep } from 'node:timers/promises';
import type { RateBudget } from '../state/coordination.ts';
import { UpstreamError, type UpstreamService } from './upstream-error.ts';

export interface BudgetWait {
  /** How long a caller may queue for a slot before Kassa answers its own 429. */
  maxWaitMs: number;
  /** The share of the budget (0 to 1) kept back for more urgent callers: reads leave room for new payments. */
  reserveShare?: number;
}

/** Waits for a slot of the budget, briefly; past `maxWaitMs` it fails with a Retry-After. */
export async function takeBudget(budget: RateBudget, service: UpstreamService, wait: BudgetWait): Promise<void> {
  const deadline = Date.now() + wait.maxWaitMs;
  const reserve = Math.ceil(budget.limit * (wait.reserveShare ?? 0));
  for (;;) {
    const slot = await budget.tryTake(reserve);
    if (slot.ok) return;
    if (Date.now() + slot.retryInMs > deadline) {
      throw new UpstreamError(service, 'rate_limited', 'Too many requests to the upstream service right now', {
        retryAfterMs: slot.retryInMs,
      });
    }
    // Others wait too: look again a little later rather than all at the same instant.
    await sleep(Math.min(slot.retryInMs, 200) + Math.random() * 50);
  }
}
