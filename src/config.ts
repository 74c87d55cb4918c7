import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as v from 'valibot';

/** Which proxy header, if any, names the client's address (see `Config.trustProxy`). */
export type TrustProxy = 'none' | 'forwarded' | 'fly';

/**
 * The AWS SDK's standard variables for the files bucket: `AWS_REGION`, `AWS_ACCESS_KEY_ID`,
 * `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`, `AWS_ENDPOINT_URL_S3` or `AWS_ENDPOINT_URL`. What
 * is unset is left to the SDK's own lookup (shared config files, instance and container roles).
 * With an endpoint, buckets are addressed by path (`endpoint/bucket/key`).
 */
export interface S3Settings {
  region?: string;
  endpoint?: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  sessionToken?: string;
}

/** A plan caps how many participants the owner's workshops may hold. */
export interface Plan {
  name: string;
  workshops_max_attendees: number;
}

/** Everything the service reads from its environment, parsed once at start (each limit is described in `LIMITS`). */
export interface Config extends LimitSettings {
  /** HTTP, Socket.IO and Yjs share this port. */
  port: number;
  /** SQLite file (WAL mode); `:memory:` is not supported because several connections share it. */
  databasePath: string;
  /**
   * When set (`postgres://…`), everything is stored in PostgreSQL instead of `databasePath`
   * (docs/operations.md#running-on-postgresql).
   */
  databaseUrl: string | undefined;
  /** PostgreSQL connections one instance keeps at most. */
  databasePoolSize: number;
  /**
   * How SQLite (WAL) syncs a commit to disk: `full`, before the commit is acknowledged, so it
   * survives a power cut; `normal`, at checkpoints only, so the last acknowledged commits survive a
   * crash of the process but may be lost with the machine (`SQLITE_SYNCHRONOUS`).
   */
  sqliteSynchronous: 'full' | 'normal';
  /** Uploaded and generated files (local storage driver). */
  filesDir: string;
  /**
   * When set (`s3://bucket/optional/prefix`), files live in that S3-compatible bucket instead of
   * `filesDir`, and every instance serves every file (docs/configuration.md#object-storage).
   */
  filesUrl: string | undefined;
  /** How the S3 client reaches and signs in to `filesUrl`'s bucket. */
  s3: S3Settings;
  /** Base of every URL the service hands out. */
  publicUrl: string;
  /** Signs download links and one-time tokens. */
  secret: string;
  /** When set, realtime fan-out goes through Redis. */
  redisUrl: string | undefined;
  /** When set, mail goes out over SMTP; otherwise it stays in the outbox table. */
  smtpUrl: string | undefined;
  mailFrom: string;
  /** The first wait before sending a refused mail again; it doubles with each attempt, up to an hour. */
  mailRetryBaseMs: number;
  /**
   * How long a mail taken for sending stays that instance's; past it (the instance died mid-send)
   * another takes it over. Above an SMTP exchange's timeouts, or a slow exchange is taken over and
   * the mail sent twice.
   */
  mailLeaseMs: number;
  /** How long an export taken for rendering stays that instance's; past it another takes it over. Above a render's time limit, for the same reason. */
  exportLeaseMs: number;
  /** Plans by name; users start on `free`, organizations on `team`. */
  plans: Record<string, Plan>;
  /** Hosts a native-file import may fetch even though they resolve to private addresses. */
  importAllowHosts: string[];
  /** A native-file import's fetch gives up after this long (docs/api.md#exports: 10 s). */
  importTimeoutMs: number;
  /** Bearer tokens expire after this long without use. */
  tokenTtlMs: number;
  /**
   * Where the client's address comes from: the socket's peer (`none`), the last `X-Forwarded-For`
   * entry behind a proxy (`forwarded`), or Fly's `Fly-Client-IP` (`fly`).
   */
  trustProxy: TrustProxy;
  /**
   * Origins whose browser apps may call the API and open Socket.IO connections: `*` (the default;
   * safe for an API authenticated by bearer tokens rather than cookies) or a list.
   */
  corsOrigins: string | string[];
  /**
   * How often live connections are checked against the database (token still valid, still a
   * member), besides the checks that logouts and role changes trigger at once.
   */
  liveRecheckMs: number;
  /** Whether to log each request (off in tests). */
  logRequests: boolean;
  /** An upload attached to nothing (no attachment, no step illustration) is removed once this many hours old. */
  uploadUnattachedHours: number;
  /**
   * When set, `GET /metrics` needs `Authorization: Bearer <metricsToken>`; unset, it answers only
   * requests whose peer is a loopback address (docs/operations.md#what-to-watch).
   */
  metricsToken: string | undefined;
}

export const DEFAULT_PLANS: Record<string, Plan> = {
  free: { name: 'free', workshops_max_attendees: 100 },
  team: { name: 'team', workshops_max_attendees: 1000 },
  enterprise: { name: 'enterprise', workshops_max_attendees: 10000 },
};

/** The settings no environment variable changes: the same for the service and for tests. */
const FIXED = {
  mailRetryBaseMs: 30_000,
  plans: DEFAULT_PLANS,
  importTimeoutMs: 10_000,
  tokenTtlMs: 30 * 24 * 3600 * 1000,
  liveRecheckMs: 30_000,
} satisfies Partial<Config>;

/**
 * A whole number from `min` to `max` in plain digits (no sign, point, exponent or spaces), else
 * `message`, which names the range.
 */
const wholeNumber = (min: number, max: number, message: string) =>
  v.pipe(
    v.string(),
    v.regex(new RegExp(`^\\d{1,${String(max).length}}$`), message),
    v.transform(Number),
    v.minValue(min, message),
    v.maxValue(max, message),
  );

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
  /** Confirmation mails one user may have sent again in 10 minutes. */
  confirmationMailsPer10Minutes: { env: 'CONFIRMATION_MAILS_PER_10_MINUTES', fallback: 3, windowS: 600 },
  /** Socket.IO joins one connection may make in 10 seconds. */
  joinsPerSocketPer10Seconds: { env: 'JOINS_PER_SOCKET_PER_10_SECONDS', fallback: 10, windowS: 10 },
  /** Socket.IO joins one user may make per minute, whatever their connections. */
  joinsPerUserPerMinute: { env: 'JOINS_PER_USER_PER_MINUTE', fallback: 60, windowS: 60 },
  /** Events one user may have replayed by resumes per minute (beyond, a resume answers `reload`). */
  replayedEventsPerUserPerMinute: { env: 'REPLAYED_EVENTS_PER_USER_PER_MINUTE', fallback: 2_500, windowS: 60 },
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

const LIMIT_NAMES = Object.keys(LIMITS) as LimitName[];

/** The limits' values: those set, and for the others their default (following, in turn, the limit they follow). */
function limitSettings(set: Partial<LimitSettings>): LimitSettings {
  const value = (name: LimitName): number => {
    const fallback: LimitDefault = LIMITS[name].fallback;
    return (
      set[name] ?? (typeof fallback === 'number' ? fallback : fallback.times * value(fallback.follows as LimitName))
    );
  };
  return Object.fromEntries(LIMIT_NAMES.map((name) => [name, value(name)])) as LimitSettings;
}

/** A windowed limit as a limiter's budget: its points (its value) per its window. */
export function budget<K extends WindowedLimit>(config: Pick<Config, K>, name: K): { points: number; windowS: number } {
  return { points: config[name], windowS: LIMITS[name].windowS as number };
}

/** Stays an exact integer in every counter, and within the database's integer column. */
const LIMIT_MAX = 1_000_000_000;
const limitValue = wholeNumber(0, LIMIT_MAX, `expected a whole number from 0 (no limit) to ${LIMIT_MAX}`);
/** Each limit's variable; unset, `limitSettings` gives it its default. */
const limitVariables = Object.fromEntries(Object.values(LIMITS).map(({ env }) => [env, v.optional(limitValue)])) as {
  [K in LimitName as (typeof LIMITS)[K]['env']]: v.OptionalSchema<typeof limitValue, undefined>;
};

/** The leases' defaults when their variables are unset; tests start from them too. */
const LEASE_DEFAULTS = {
  mailLeaseMs: 120_000,
  exportLeaseMs: 300_000,
} satisfies Partial<Config>;

/** Hours an upload attached to nothing is kept by default. */
const UPLOAD_UNATTACHED_HOURS = 24;

/** The longest timer Node arms (about 24.8 days): a lease's end is waited for with one. */
const LONGEST_TIMER_MS = 2_147_483_647;
const leaseVariable = (fallback: number) =>
  v.optional(
    wholeNumber(1000, LONGEST_TIMER_MS, `expected a whole number of milliseconds, from 1000 to ${LONGEST_TIMER_MS}`),
    String(fallback),
  );

const EnvSchema = v.object({
  PORT: v.optional(wholeNumber(0, 65535, 'expected a port number from 0 to 65535'), '3000'),
  DATABASE_PATH: v.optional(v.pipe(v.string(), v.minLength(1)), './data/workshops.db'),
  DATABASE_URL: v.optional(v.pipe(v.string(), v.regex(/^postgres(ql)?:\/\/\S+$/, 'expected a postgres:// URL'))),
  DATABASE_POOL_SIZE: v.optional(wholeNumber(1, 100, 'expected a number from 1 to 100'), '10'),
  SQLITE_SYNCHRONOUS: v.optional(v.picklist(['full', 'normal'], 'expected full or normal'), 'full'),
  FILES_DIR: v.optional(v.pipe(v.string(), v.minLength(1)), './data/files'),
  // S3's bucket naming rules (3 to 63 lowercase letters, digits, dots and dashes); the prefix in
  // S3's safe key characters, without empty segments.
  FILES_URL: v.optional(
    v.pipe(
      v.string(),
      v.regex(
        /^s3:\/\/[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](\/([\w!.*'()-]+\/)*([\w!.*'()-]+)?)?$/,
        'expected s3://bucket or s3://bucket/prefix (a bucket name of 3 to 63 lowercase letters, digits, dots and dashes)',
      ),
    ),
  ),
  AWS_REGION: v.optional(v.string()),
  AWS_ACCESS_KEY_ID: v.optional(v.string()),
  AWS_SECRET_ACCESS_KEY: v.optional(v.string()),
  AWS_SESSION_TOKEN: v.optional(v.string()),
  AWS_ENDPOINT_URL_S3: v.optional(
    v.pipe(v.string(), v.regex(/^https?:\/\/[^\s/]+\S*$/, 'expected an http(s) URL such as http://127.0.0.1:9000')),
  ),
  AWS_ENDPOINT_URL: v.optional(
    v.pipe(v.string(), v.regex(/^https?:\/\/[^\s/]+\S*$/, 'expected an http(s) URL such as http://127.0.0.1:9000')),
  ),
  PUBLIC_URL: v.optional(v.pipe(v.string(), v.url())),
  SECRET: v.optional(v.pipe(v.string(), v.minLength(16))),
  REDIS_URL: v.optional(v.pipe(v.string(), v.url())),
  SMTP_URL: v.optional(v.pipe(v.string(), v.url())),
  MAIL_FROM: v.optional(v.string(), 'Workshops <no-reply@localhost>'),
  IMPORT_ALLOW_HOSTS: v.optional(v.string(), ''),
  LOG_REQUESTS: v.optional(v.picklist(['0', '1', 'true', 'false']), '1'),
  TRUST_PROXY: v.optional(v.picklist(['0', '1', 'true', 'false', 'fly']), '0'),
  CORS_ORIGINS: v.optional(v.pipe(v.string(), v.trim()), '*'),
  METRICS_TOKEN: v.optional(v.pipe(v.string(), v.regex(/^\S{16,}$/, 'expected at least 16 characters, no spaces'))),
  ...limitVariables,
  MAIL_LEASE_MS: leaseVariable(LEASE_DEFAULTS.mailLeaseMs),
  EXPORT_LEASE_MS: leaseVariable(LEASE_DEFAULTS.exportLeaseMs),
  UPLOAD_UNATTACHED_HOURS: v.optional(
    wholeNumber(1, 87_600, 'expected a whole number of hours, from 1 to 87600'),
    String(UPLOAD_UNATTACHED_HOURS),
  ),
});

/** A setting that cannot be used; its message is one line naming the variable and its value. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Parses the environment into a Config; throws a `ConfigError` on a bad value. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = v.safeParse(EnvSchema, env);
  if (!parsed.success) {
    const problems = parsed.issues.map((issue) => {
      const name = v.getDotPath(issue) ?? '?';
      return `${name}=${JSON.stringify(env[name] ?? '')}: ${issue.message}`;
    });
    throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`);
  }
  const e = parsed.output;
  // Instances on several machines must sign links alike: a secret made on one of them would not do.
  const shared = [e.DATABASE_URL && 'DATABASE_URL', e.FILES_URL && 'FILES_URL'].filter((name) => !!name);
  if (shared.length > 0 && !e.SECRET) {
    throw new ConfigError(
      `SECRET must be set when ${shared.join(' and ')} ${shared.length > 1 ? 'are' : 'is'}: every instance sharing the ${e.DATABASE_URL ? 'database' : 'files'} must sign links with the same secret.`,
    );
  }
  return {
    port: e.PORT,
    databasePath: e.DATABASE_PATH,
    databaseUrl: e.DATABASE_URL,
    databasePoolSize: e.DATABASE_POOL_SIZE,
    sqliteSynchronous: e.SQLITE_SYNCHRONOUS,
    filesDir: e.FILES_DIR,
    filesUrl: e.FILES_URL,
    s3: s3Settings(e),
    publicUrl: (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, ''),
    secret: e.SECRET ?? persistentSecret(dirname(e.DATABASE_PATH)),
    redisUrl: e.REDIS_URL,
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM,
    mailLeaseMs: e.MAIL_LEASE_MS,
    exportLeaseMs: e.EXPORT_LEASE_MS,
    ...FIXED,
    ...limitSettings(Object.fromEntries(LIMIT_NAMES.map((name) => [name, e[LIMITS[name].env]]))),
    importAllowHosts: e.IMPORT_ALLOW_HOSTS.split(',')
      .map((h) => h.trim().toLowerCase())
      .filter(Boolean),
    trustProxy:
      e.TRUST_PROXY === 'fly' ? 'fly' : e.TRUST_PROXY === '1' || e.TRUST_PROXY === 'true' ? 'forwarded' : 'none',
    corsOrigins:
      e.CORS_ORIGINS === '*' || e.CORS_ORIGINS === ''
        ? '*'
        : e.CORS_ORIGINS.split(',')
            .map((o) => o.trim().replace(/\/+$/, ''))
            .filter(Boolean),
    logRequests: e.LOG_REQUESTS === '1' || e.LOG_REQUESTS === 'true',
    metricsToken: e.METRICS_TOKEN,
    uploadUnattachedHours: e.UPLOAD_UNATTACHED_HOURS,
  };
}

/** Builds a Config for tests and tools: defaults, then the given overrides. */
export function testConfig(overrides: Partial<Config> & Pick<Config, 'databasePath' | 'filesDir'>): Config {
  const config = {
    port: 0,
    databaseUrl: undefined,
    databasePoolSize: 10,
    // Test databases need not outlive a power cut (the tests' PostgreSQL runs with fsync off too).
    sqliteSynchronous: 'normal' as const,
    filesUrl: undefined,
    s3: {},
    publicUrl: 'http://localhost',
    secret: randomBytes(32).toString('hex'),
    redisUrl: undefined,
    smtpUrl: undefined,
    mailFrom: 'Workshops <no-reply@localhost>',
    ...LEASE_DEFAULTS,
    ...FIXED,
    importAllowHosts: [],
    trustProxy: 'none' as const,
    corsOrigins: '*',
    logRequests: false,
    metricsToken: undefined,
    uploadUnattachedHours: UPLOAD_UNATTACHED_HOURS,
    ...overrides,
  };
  // Test files sign many users up from one address; the throttling tests set their own.
  return { ...config, ...limitSettings({ authAttemptsPerMinute: 10_000, ...overrides }) };
}

/** Unset and empty variables alike are left to the SDK's own lookup. */
function s3Settings(e: v.InferOutput<typeof EnvSchema>): S3Settings {
  const settings: S3Settings = {
    region: e.AWS_REGION,
    endpoint: e.AWS_ENDPOINT_URL_S3 ?? e.AWS_ENDPOINT_URL,
    accessKeyId: e.AWS_ACCESS_KEY_ID,
    secretAccessKey: e.AWS_SECRET_ACCESS_KEY,
    sessionToken: e.AWS_SESSION_TOKEN,
  };
  return Object.fromEntries(Object.entries(settings).filter(([, value]) => value)) as S3Settings;
}

/**
 * Without SECRET the service generates one on first start and keeps it beside the database,
 * so signed links survive restarts. Instances starting together on a fresh folder agree on one:
 * each writes its candidate to a file of its own, then links it into place, which only the first
 * can do; the others read the winner's.
 */
function persistentSecret(dataDir: string): string {
  const file = join(dataDir, 'secret');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(dataDir, { recursive: true });
  const candidate = join(dataDir, `secret.${process.pid}.${randomBytes(6).toString('hex')}`);
  writeFileSync(candidate, randomBytes(32).toString('hex'), { mode: 0o600 });
  try {
    linkSync(candidate, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    rmSync(candidate, { force: true });
  }
  return readFileSync(file, 'utf8').trim();
}
