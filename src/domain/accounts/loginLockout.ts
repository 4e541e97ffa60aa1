import { RateLimiterRes, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { tooManyRequests } from '../../errors';
import type { LimiterFactory } from '../../limits/limiters';

const MAX_FAILURES = 5;
const WINDOW_SECONDS = 15 * 60;
const LOCK_SECONDS = 15 * 60;

/** One reserved sign-in attempt: the caller settles it once the password has been checked. */
export interface LoginAttempt {
  /** The password was right: the counter is cleared, which refunds this attempt along with earlier failures. */
  succeeded(): Promise<void>;
  /** The password was wrong: the attempt stays counted; the fifth locks the email for a full lock period. */
  failed(): Promise<void>;
  /** Nothing was learned about the password (the check itself broke): the attempt is refunded. */
  abandoned(): Promise<void>;
}

/**
 * The login lockout shared by web sign-in, portal login and agent login: 5 failures for
 * one email within 15 minutes lock that email for 15 minutes, whichever surface the attempts came from.
 *
 * Every attempt is reserved (an atomic consume, in Redis across nodes) before its password is checked,
 * so at most 5 passwords are ever checked per email and window however many requests arrive at once.
 * Checking the lock first and counting the failure after the slow hash let a parallel burst through.
 */
export class LoginLockout {
  readonly #attempts: RateLimiterAbstract;

  constructor(limiters: LimiterFactory) {
    this.#attempts = limiters({ name: 'login-failures', points: MAX_FAILURES, duration: WINDOW_SECONDS });
  }

  /** Reserves one attempt for the email; throws 429 with Retry-After once 5 are spent (locked). */
  async begin(email: string): Promise<LoginAttempt> {
    const key = keyFor(email);
    let reserved: RateLimiterRes;
    try {
      reserved = await this.#attempts.consume(key, 1);
    } catch (rejection) {
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      throw tooManyRequests(rejection.msBeforeNext / 1000, 'Too many failed sign-in attempts. Try again later.');
    }
    return {
      succeeded: () => this.clear(email),
      failed: async () => {
        // The attempt that took the fifth point starts a full lock period, however much of the counting
        // window is left. Attempts still in flight hold the other points, so no sixth check can start.
        if (reserved.consumedPoints >= MAX_FAILURES) await this.#attempts.block(key, LOCK_SECONDS);
      },
      abandoned: async () => {
        await this.#attempts.reward(key, 1);
      },
    };
  }

  async clear(email: string): Promise<void> {
    await this.#attempts.delete(keyFor(email));
  }
}

const keyFor = (email: string) => email.trim().toLowerCase();
