/**
 * When a failed delivery is tried again: soon at first, then further apart, each delay varied by up to
 * ±20 % so that a receiver coming back up is not met by every event at once. After three days from
 * the event, it is given up and marked failed (the operator can still redeliver it).
 */
export const RETRY_DELAYS_MS = [
  5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 7_200_000, 14_400_000, 28_800_000,
] as const;
/** After the listed delays, every 12 hours. */
export const LATE_RETRY_MS = 43_200_000;
export const GIVE_UP_AFTER_MS = 3 * 24 * 3_600_000;
const JITTER = 0.2;

/** The longest wait a receiver's Retry-After (429, 503) is followed for: the schedule's horizon still holds. */
const RETRY_AFTER_CAP_MS = 3_600_000;

export interface RetrySchedule {
  /** The delay before attempt `attempts + 1`, given `attempts` failed attempts so far. */
  delay(attempts: number): number;
  giveUpAfterMs: number;
}

/** The production schedule; `scale` shrinks it for tests and benchmarks (0.001: 5 ms, 30 ms, ...). */
export function retrySchedule(scale = 1, random: () => number = Math.random): RetrySchedule {
  return {
    delay(attempts) {
      const base = RETRY_DELAYS_MS[attempts - 1] ?? LATE_RETRY_MS;
      return Math.round(base * scale * (1 + JITTER * (2 * random() - 1)));
    },
    giveUpAfterMs: GIVE_UP_AFTER_MS * scale,
  };
}

/**
 * What follows a failed attempt (`attempts` failed so far, this one included) of an event created at
 * `createdAt`: due again after the schedule's delay, or a receiver's longer Retry-After (up to an
 * hour), or given up past the horizon.
 */
export function afterFailure(
  schedule: RetrySchedule,
  attempts: number,
  createdAt: number,
  now: number,
  retryAfter: number | undefined,
): { status: 'pending'; retryAt: number } | { status: 'failed' } {
  const delay = Math.max(schedule.delay(attempts), Math.min(retryAfter ?? 0, RETRY_AFTER_CAP_MS));
  const retryAt = now + delay;
  return retryAt - createdAt > schedule.giveUpAfterMs ? { status: 'failed' } : { status: 'pending', retryAt };
}
