import type { Context } from 'hono';
import type { Config } from '../../config';
import type { AttemptStores } from '../../http/middleware/attempt-stores';
import type { AppEnv } from '../../http/env';
import { clientAddress, limitAttempts } from '../../http/middleware/rate-limit';

/** The e-mail a login names, as the account's key (Hono keeps the body's text for the validator). */
async function loginEmail(c: Context<AppEnv>): Promise<string> {
  let body: unknown = null;
  try {
    body = JSON.parse(await c.req.text());
  } catch {
    // A malformed body gets its 400 from the validator; it spends no account's budget.
  }
  const email = typeof body === 'object' && body !== null && 'email' in body && typeof body.email === 'string' ? body.email : '';
  return email.trim().toLowerCase();
}

/**
 * Passwords cannot be guessed quickly: failed logins are limited per account and per address.
 * Only a failure counts, so the right password still works while the budget lasts; and the
 * window is one minute, so someone failing on purpose locks the real user out for a minute at most
 * after they stop.
 */
type ThrottleDeps = { config: Pick<Config, 'authAttemptsPerMinute' | 'loginFailuresPerAddressPerMinute' | 'signupsPerAddressPerMinute' | 'trustProxy'>; attempts: AttemptStores };

export function loginThrottles({ config, attempts }: ThrottleDeps) {
  const failed = (c: Context<AppEnv>) => c.res.status === 401;
  const message = (seconds: number) => `Too many failed logins; try again in ${seconds} s.`;
  return [
    limitAttempts({ name: 'login_address', limit: config.loginFailuresPerAddressPerMinute, windowMs: 60_000, key: clientAddress(config), counts: failed, message, store: attempts.create() }),
    limitAttempts({ name: 'login_account', limit: config.authAttemptsPerMinute, windowMs: 60_000, key: loginEmail, counts: failed, message, store: attempts.create() }),
  ] as const;
}

/** Each signup sends a confirmation mail: signups are limited per address, so mail cannot be sprayed. */
export function signupThrottle({ config, attempts }: ThrottleDeps) {
  return limitAttempts({
    name: 'signup_address',
    limit: config.signupsPerAddressPerMinute,
    windowMs: 60_000,
    key: clientAddress(config),
    counts: (c) => c.res.status < 500,
    message: (seconds) => `Too many signups from this address; try again in ${seconds} s.`,
    store: attempts.create(),
  });
}
