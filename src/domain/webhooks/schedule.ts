/**
 * When a failed delivery is tried again (docs/webhooks.md "Retries"): after 10 s, 1 min, 5 min, 30 min,
 * 2 h, 6 h and 12 h; the attempt after the last wait is the last. The time of the next attempt is
 * stored on the delivery (`next_attempt_at`), so a restart loses no retry and the schedule is read
 * from the database, never from a timer.
 */
export const RETRY_DELAYS_MS: readonly number[] = [10_000, 60_000, 300_000, 1_800_000, 7_200_000, 21_600_000, 43_200_000];

/** Attempts in all: the first and one per wait. */
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/** A webhook whose deliveries have failed without a success in between for this long is set inactive. */
export const DEACTIVATE_AFTER_MS = 3 * 24 * 3_600_000;

/** The wait after attempt number `attempts` (1-based) failed, or null when that was the last. */
export function retryDelayAfter(attempts: number): number | null {
  return attempts >= MAX_ATTEMPTS ? null : RETRY_DELAYS_MS[attempts - 1]!;
}

/** A delivery answered 2xx within this time is delivered; anything else (a timeout included) is a failed attempt. */
export const DELIVERY_TIMEOUT_MS = 10_000;

/** How much of a receiver's answer is kept in the delivery log. */
export const RESPONSE_BODY_LIMIT = 1024;
