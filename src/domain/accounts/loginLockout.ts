import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { LimiterFactory } from '../../http/rateLimit';
import { tooManyRequests } from '../../errors';

const MAX_FAILURES = 5;
const WINDOW_SECONDS = 15 * 60;
const LOCK_SECONDS = 15 * 60;

/**
 * The login lockout shared by web sign-in, portal login and agent login: 5 failures for
 * one email within 15 minutes lock that email for 15 minutes, whichever surface the attempts came from.
 */
export class LoginLockout {
  readonly #failures: RateLimiterAbstract;

  constructor(limiters: LimiterFactory) {
    this.#failures = limiters({ name: 'login-failures', points: MAX_FAILURES, duration: WINDOW_SECONDS });
  }

  /** Throws 429 with Retry-After while the address is locked. */
  async assertNotLocked(email: string): Promise<void> {
    const state = await this.#failures.get(keyFor(email));
    if (state && state.consumedPoints >= MAX_FAILURES) {
      throw tooManyRequests(state.msBeforeNext / 1000, 'Too many failed sign-in attempts. Try again later.');
    }
  }

  async recordFailure(email: string): Promise<void> {
    const key = keyFor(email);
    const state = await this.#failures.penalty(key, 1);
    // The fifth failure starts a full lock period, however much of the counting window is left.
    if (state.consumedPoints >= MAX_FAILURES) await this.#failures.block(key, LOCK_SECONDS);
  }

  async clear(email: string): Promise<void> {
    await this.#failures.delete(keyFor(email));
  }
}

const keyFor = (email: string) => email.trim().toLowerCase();
