/**
 * Thrown by a processor whose remote end said when to come back (an HTTP `Retry-After`): the next
 * attempt runs after `delayMs` instead of the policy's backoff. It still counts as an attempt, so a
 * service that keeps saying "later" cannot keep a job alive forever.
 */
export class RetryAfter extends Error {
  override name = 'RetryAfter';

  constructor(
    readonly delayMs: number,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The wait before the next attempt once `attemptsMade` attempts failed with `error`: what a
 * `RetryAfter` asks for, else exponential backoff from `backoffMs` (BullMQ's own formula).
 */
export function retryDelayMs(error: unknown, backoffMs: number, attemptsMade: number): number {
  if (error instanceof RetryAfter) return Math.max(0, Math.round(error.delayMs));
  return Math.round(backoffMs * 2 ** Math.max(0, attemptsMade - 1));
}
