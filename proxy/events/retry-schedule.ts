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
