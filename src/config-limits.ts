/**
 * The limits: each one's variable, default and window, and how a limiter reads its budget from
 * the settings (docs/configuration.md#rate-limits-and-caps).
 */

/**
 * A limit's value when its variable is unset: a number, or a multiple of the limit it follows. An
 * address stands for several people (a room behind one router): its budgets follow the per-user
 * ones unless set on their own, so one variable still tunes (or turns off) a family.
 */
type LimitDefault = number | { follows: string; times: number };

/**
 * Every limit (docs/configuration.md#rate-limits-and-caps): its variable, its default, and the window it counts
 * in (seconds; none for a cap on what waits at any moment). Here and in every limit, `0` means no
 * limit. The variables, the defaults (tests start from them too) and the windows of the
 * limiters are all read from here.
 */
export const LIMITS = {
  /** Imports from URLs one user may start per minute. */
  importsPerMinute: { env: 'IMPORTS_PER_MINUTE', fallback: 10, windowS: 60 },
  /** Invitation mails (workshops and organizations) one user's requests may send in 24 hours. */
  invitationMailsPerDay: { env: 'INVITATION_MAILS_PER_DAY', fallback: 200, windowS: 86_400 },
  /** Wrong access codes a user may try per minute before 429. */
  joinAttemptsPerMinute: { env: 'JOIN_ATTEMPTS_PER_MINUTE', fallback: 10, windowS: 60 },
  /**
   * Wrong access codes one client address may try per minute before 429; by default six times
   * `joinAttemptsPerMinute`: a room of 300 behind one address, one in ten mistyping, gets in
   * (docs/configuration.md#a-room-behind-one-address-and-guessing-codes).
   */
  joinAttemptsPerAddressPerMinute: {
    env: 'JOIN_ATTEMPTS_PER_ADDRESS_PER_MINUTE',
    fallback: { follows: 'joinAttemptsPerMinute', times: 6 },
    windowS: 60,
  },
  /**
   * Wrong access codes one client address may try in 24 hours before 429, what bounds guessing over
   * days (docs/configuration.md#a-room-behind-one-address-and-guessing-codes: the odds); by default
   * 50 times `joinAttemptsPerMinute`.
   */
  joinAttemptsPerAddressPerDay: {
    env: 'JOIN_ATTEMPTS_PER_ADDRESS_PER_DAY',
    fallback: { follows: 'joinAttemptsPerMinute', times: 50 },
    windowS: 86_400,
  },
  /** Failed logins an account may take per minute before 429. */
  authAttemptsPerMinute: { env: 'AUTH_ATTEMPTS_PER_MINUTE', fallback: 10, windowS: 60 },
  /** Failed logins, on any accounts, one address may make per minute; by default three times `authAttemptsPerMinute`. */
  loginFailuresPerAddressPerMinute: {
    env: 'LOGIN_FAILURES_PER_ADDRESS_PER_MINUTE',
    fallback: { follows: 'authAttemptsPerMinute', times: 3 },
    windowS: 60,
  },
  /** Signups (each sends a mail) one address may make per minute; by default `authAttemptsPerMinute`. */
  signupsPerAddressPerMinute: {
    env: 'SIGNUPS_PER_ADDRESS_PER_MINUTE',
    fallback: { follows: 'authAttemptsPerMinute', times: 1 },
    windowS: 60,
  },
  /**
   * Password reset mails one e-mail address may be sent in 10 minutes (docs/api.md#an-accounts-life):
   * counted for every request naming it, whether an account has it or not.
   */
  passwordResetMailsPer10Minutes: { env: 'PASSWORD_RESET_MAILS_PER_10_MINUTES', fallback: 3, windowS: 600 },
  /** Password resets, for any addresses, one client address may ask for in 10 minutes; by default three times `authAttemptsPerMinute`. */
  passwordResetsPerAddressPer10Minutes: {
    env: 'PASSWORD_RESETS_PER_ADDRESS_PER_10_MINUTES',
    fallback: { follows: 'authAttemptsPerMinute', times: 3 },
    windowS: 600,
  },
  /** Address changes (each mails the new address and the old) one user may ask for in 10 minutes. */
  addressChangeMailsPer10Minutes: { env: 'ADDRESS_CHANGE_MAILS_PER_10_MINUTES', fallback: 3, windowS: 600 },
  /** Data exports (`GET /v1/user/me/export`, each reads every workshop of the account) one user may ask for in 10 minutes. */
  dataExportsPer10Minutes: { env: 'DATA_EXPORTS_PER_10_MINUTES', fallback: 3, windowS: 600 },
  /** Confirmation mails one user may have sent again in 10 minutes. */
  confirmationMailsPer10Minutes: { env: 'CONFIRMATION_MAILS_PER_10_MINUTES', fallback: 3, windowS: 600 },
  /** Socket.IO joins one connection may make in 10 seconds. */
  joinsPerSocketPer10Seconds: { env: 'JOINS_PER_SOCKET_PER_10_SECONDS', fallback: 10, windowS: 10 },
  /** Socket.IO joins one user may make per minute, whatever their connections. */
  joinsPerUserPerMinute: { env: 'JOINS_PER_USER_PER_MINUTE', fallback: 60, windowS: 60 },
  /** Events one user may have replayed by resumes per minute (beyond, a resume answers `reload`). */
  replayedEventsPerUserPerMinute: { env: 'REPLAYED_EVENTS_PER_USER_PER_MINUTE', fallback: 2_500, windowS: 60 },
  /** Requests one API token may make per minute (docs/integrations.md#rate-limit), on any instance. */
  apiTokenRequestsPerMinute: { env: 'API_TOKEN_REQUESTS_PER_MINUTE', fallback: 600, windowS: 60 },
  /** Exports of one workshop waiting to be made at once. */
  pendingExportsPerWorkshop: { env: 'PENDING_EXPORTS_PER_WORKSHOP', fallback: 5, windowS: null },
  /** Exports one user asked for waiting to be made at once. */
  pendingExportsPerUser: { env: 'PENDING_EXPORTS_PER_USER', fallback: 10, windowS: null },
  /** MiB one user may upload in any 24 hours (counted in `files`, not by a limiter). */
  uploadUserDailyMb: { env: 'UPLOAD_USER_DAILY_MB', fallback: 200, windowS: 86_400 },
  /** MiB one guest may upload in any 24 hours. */
  uploadGuestDailyMb: { env: 'UPLOAD_GUEST_DAILY_MB', fallback: 50, windowS: 86_400 },
  /** MiB the uploads counted against one workshop may hold in all. */
  uploadWorkshopMb: { env: 'UPLOAD_WORKSHOP_MB', fallback: 2_000, windowS: null },
} as const satisfies Record<string, { env: string; fallback: LimitDefault; windowS: number | null }>;

export type LimitName = keyof typeof LIMITS;
/** Each limit's value (`LIMITS`), as `Config` holds it. */
export type LimitSettings = { -readonly [K in LimitName]: number };
/** The limits that count in a window, as opposed to caps on what waits at once. */
type WindowedLimit = { [K in LimitName]: (typeof LIMITS)[K]['windowS'] extends number ? K : never }[LimitName];

export const LIMIT_NAMES = Object.keys(LIMITS) as LimitName[];

/** The limits' values: those set, and for the others their default (following, in turn, the limit they follow). */
export function limitSettings(set: Partial<LimitSettings>): LimitSettings {
  const value = (name: LimitName): number => {
    const fallback: LimitDefault = LIMITS[name].fallback;
    return (
      set[name] ?? (typeof fallback === 'number' ? fallback : fallback.times * value(fallback.follows as LimitName))
    );
  };
  return Object.fromEntries(LIMIT_NAMES.map((name) => [name, value(name)])) as LimitSettings;
}

/** A windowed limit as a limiter's budget: its points (its value) per its window. */
export function budget<K extends WindowedLimit>(
  config: Pick<LimitSettings, K>,
  name: K,
): { points: number; windowS: number } {
  return { points: config[name], windowS: LIMITS[name].windowS as number };
}
