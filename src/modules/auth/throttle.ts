import type { Context } from 'hono';
import type { Config } from '../../config';
import { budget } from '../../config-limits';
import { clientKey } from '../../http/client-address';
import type { AppEnv } from '../../http/env';
import { limitAttempts } from '../../http/middleware/rate-limit';
import type { Limiters } from '../../lib/limiters';

/** The e-mail a login (or a reset) names, as the account's key (Hono keeps the body's text for the validator). */
async function loginEmail(c: Context<AppEnv>): Promise<string> {
  let body: unknown = null;
  try {
    body = JSON.parse(await c.req.text());
  } catch {
    // A malformed body gets its 400 from the validator; it spends no account's budget.
  }
  const email =
    typeof body === 'object' && body !== null && 'email' in body && typeof body.email === 'string' ? body.email : '';
  return email.trim().toLowerCase();
}

/**
 * Passwords cannot be guessed quickly: failed logins are limited per account and per address.
 * Only a failure counts, so the right password still works while the budget lasts; and the
 * window is one minute, so someone failing on purpose locks the real user out for a minute at most
 * after they stop.
 */
type ThrottleDeps = {
  config: Pick<
    Config,
    'authAttemptsPerMinute' | 'loginFailuresPerAddressPerMinute' | 'signupsPerAddressPerMinute' | 'trustProxy'
  >;
  attempts: Pick<Limiters, 'limiter'>;
};

export function loginThrottles({ config, attempts }: ThrottleDeps) {
  const failed = (c: Context<AppEnv>) => c.res.status === 401;
  const message = (seconds: number) => `Too many failed logins; try again in ${seconds} s.`;
  return [
    limitAttempts(attempts.limiter({ name: 'login_address', ...budget(config, 'loginFailuresPerAddressPerMinute') }), {
      key: (c) => clientKey(c, config),
      counts: failed,
      message,
    }),
    limitAttempts(attempts.limiter({ name: 'login_account', ...budget(config, 'authAttemptsPerMinute') }), {
      key: loginEmail,
      counts: failed,
      message,
    }),
  ] as const;
}

/** Each signup sends a confirmation mail: signups are limited per address, so mail cannot be sprayed. */
export function signupThrottle({ config, attempts }: ThrottleDeps) {
  return limitAttempts(attempts.limiter({ name: 'signup_address', ...budget(config, 'signupsPerAddressPerMinute') }), {
    key: (c) => clientKey(c, config),
    counts: (c) => c.res.status < 500,
    message: (seconds) => `Too many signups from this address; try again in ${seconds} s.`,
  });
}

/**
 * Mails a signed-in user's request sends, limited per user (`budgetName`, per 10 minutes), counted
 * when the route answers `sentStatus`: nobody can flood a mailbox through their account.
 */
type MailDeps<B extends MailBudget> = { config: Pick<Config, B>; attempts: Pick<Limiters, 'limiter'> };
type MailBudget = 'confirmationMailsPer10Minutes' | 'addressChangeMailsPer10Minutes';

function mailsPerUser<B extends MailBudget>(
  { config, attempts }: MailDeps<B>,
  name: string,
  budgetName: B,
  sentStatus: number,
  message: (seconds: number) => string,
) {
  return limitAttempts(attempts.limiter({ name, ...budget(config, budgetName) }), {
    key: (c) => c.get('user').id,
    counts: (c) => c.res.status === sentStatus,
    message,
  });
}

/**
 * Each resend mails the account's address, which nobody has confirmed yet: like signups, resends
 * are limited, so an account made with someone else's address cannot keep mailing it.
 */
export function confirmationResendThrottle(deps: MailDeps<'confirmationMailsPer10Minutes'>) {
  return mailsPerUser(
    deps,
    'confirmation_user',
    'confirmationMailsPer10Minutes',
    204,
    (seconds) => `A confirmation mail was sent a moment ago; check your inbox, or ask again in ${seconds} s.`,
  );
}

/**
 * Wrong confirmation tokens are limited per address like failed logins: a token cannot be guessed
 * anyway, but each refused request sent with an Idempotency-Key has its answer kept for a day
 * (docs/api.md#idempotent-writes), and this bounds what one address can make the service keep.
 */
export function confirmThrottle({ config, attempts }: ThrottleDeps) {
  return limitAttempts(
    attempts.limiter({ name: 'confirm_address', ...budget(config, 'loginFailuresPerAddressPerMinute') }),
    {
      key: (c) => clientKey(c, config),
      // A wrong or expired link is a 400, as is a malformed body; a key in use or reused is no guess.
      counts: (c) => c.res.status === 400,
      message: (seconds) => `Too many wrong confirmation links from this address; try again in ${seconds} s.`,
    },
  );
}

/**
 * A reset mails whoever holds the address named: resets are limited per named address, so nobody
 * can flood a mailbox, and per client address, so nobody can spray many; every request counts,
 * whether an account has the address or not, so the answer says nothing of who has an account
 * (docs/api.md#an-accounts-life).
 */
export function passwordResetThrottles({
  config,
  attempts,
}: {
  config: Pick<Config, 'passwordResetMailsPer10Minutes' | 'passwordResetsPerAddressPer10Minutes' | 'trustProxy'>;
  attempts: Pick<Limiters, 'limiter'>;
}) {
  const counts = (c: Context<AppEnv>) => c.res.status === 204;
  const message = (seconds: number) => `Too many password resets asked for; try again in ${seconds} s.`;
  return [
    limitAttempts(
      attempts.limiter({ name: 'reset_address', ...budget(config, 'passwordResetsPerAddressPer10Minutes') }),
      { key: (c) => clientKey(c, config), counts, message },
    ),
    limitAttempts(attempts.limiter({ name: 'reset_mailbox', ...budget(config, 'passwordResetMailsPer10Minutes') }), {
      key: loginEmail,
      counts,
      message,
    }),
  ] as const;
}

/**
 * Wrong reset links are limited per client address like wrong confirmation links
 * (`confirmThrottle`): a link cannot be guessed, and this bounds the answers kept for keys.
 */
export function resetLinkThrottle({ config, attempts }: ThrottleDeps) {
  return limitAttempts(
    attempts.limiter({ name: 'reset_link_address', ...budget(config, 'loginFailuresPerAddressPerMinute') }),
    {
      key: (c) => clientKey(c, config),
      counts: (c) => c.res.status === 400,
      message: (seconds) => `Too many wrong reset links from this address; try again in ${seconds} s.`,
    },
  );
}

/**
 * A signed-in person asked for their password again (a change of password or of address): a wrong
 * one counts as a failed login, on the login's own budgets, for the account's address and the client's.
 */
export function passwordCheckThrottles({ config, attempts }: ThrottleDeps) {
  const failed = (c: Context<AppEnv>) => c.res.status === 401;
  const message = (seconds: number) => `Too many wrong passwords; try again in ${seconds} s.`;
  return [
    limitAttempts(attempts.limiter({ name: 'login_address', ...budget(config, 'loginFailuresPerAddressPerMinute') }), {
      key: (c) => clientKey(c, config),
      counts: failed,
      message,
    }),
    limitAttempts(attempts.limiter({ name: 'login_account', ...budget(config, 'authAttemptsPerMinute') }), {
      key: (c) => c.get('user').email ?? c.get('user').id,
      counts: failed,
      message,
    }),
  ] as const;
}

/** Each address change mails the new address and the old: limited per user, so neither can be flooded. */
export function addressChangeThrottle(deps: MailDeps<'addressChangeMailsPer10Minutes'>) {
  return mailsPerUser(
    deps,
    'address_change_user',
    'addressChangeMailsPer10Minutes',
    202,
    (seconds) => `An address change was asked for a moment ago; try again in ${seconds} s.`,
  );
}
