import type { Context, MiddlewareHandler } from 'hono';
import type { Limiter } from '../../lib/limiters';
import type { AppEnv } from '../env';
import { AppError } from '../errors';

export interface AttemptLimitOptions {
  /** Whose budget a request spends (a user id, an address, an e-mail). */
  key: (c: Context<AppEnv>) => string | Promise<string>;
  /** Which answers count against the budget (a wrong code, a failed login); all of them when absent. */
  counts?: (c: Context<AppEnv>) => boolean;
  /** The sentence of the 429, given the seconds to wait. */
  message: (seconds: number) => string;
  /**
   * Requests that are no guess (a join link's key, too long to guess): never refused, and, not
   * having taken a point first, counted after their answer when `counts` picks it.
   */
  unguessable?: (c: Context<AppEnv>) => boolean | Promise<boolean>;
}

/**
 * Limits attempts of one kind (wrong access codes, failed logins, signups) on `limiter`'s budget
 * (`deps.attempts.limiter(…)`), with the documented 429 `rate_limited` and `Retry-After`. Each
 * request takes its point before it runs, so requests sent together cannot all find the budget
 * unspent, and gives it back unless its answer is one `counts` picks: a correct code or password
 * after a few mistakes still goes through, and costs nothing.
 */
export function limitAttempts(limiter: Limiter, options: AttemptLimitOptions): MiddlewareHandler<AppEnv> {
  const counted = (c: Context<AppEnv>) => c.get('answeredByKey') !== true && (options.counts?.(c) ?? true);
  return async function limitAttempt(c, next) {
    const key = await options.key(c);
    if (await options.unguessable?.(c)) {
      await next();
      if (counted(c)) await limiter.take(key);
      return;
    }
    const wait = await limiter.take(key);
    if (wait !== null)
      throw new AppError('rate_limited', options.message(wait), { headers: { 'Retry-After': String(wait) } });
    let spent = false;
    try {
      await next();
      // Answered by its Idempotency-Key (a replay, a key in use or reused), it ran nothing: it spends nothing either.
      spent = counted(c);
    } finally {
      if (!spent) await limiter.giveBack(key);
    }
  };
}
