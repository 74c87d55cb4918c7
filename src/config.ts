import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as v from 'valibot';
import { ConfigError, EnvSchema, LEASE_DEFAULTS, UPLOAD_UNATTACHED_HOURS, type Env } from './config-env';
import {
  DEFAULT_WEBHOOK_SETTINGS,
  oidcSettings,
  webhookSettings,
  type OidcSettings,
  type WebhookSettings,
} from './config-integrations';
import { LIMIT_NAMES, LIMITS, limitSettings, type LimitSettings } from './config-limits';

export { ConfigError } from './config-env';
export type { OidcSettings, WebhookSettings } from './config-integrations';

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
  webhooks: WebhookSettings;
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
  /** Sign-in with an OpenID Connect provider; undefined when `OIDC_ISSUER` and its client are unset. */
  oidc: OidcSettings | undefined;
  /**
   * scrypt's cost for new password hashes, the power of two of its N: 14 (N = 16,384, about 40 ms
   * of one core and 16 MB per hash). No variable sets it: the test servers lower it, as each hash
   * carries its own parameters and is checked with them (docs/development.md#how-long-it-takes).
   */
  passwordHashCost: number;
  /**
   * How often an instance with SMTP looks at the outbox for mail that is due: 1 s. No variable sets
   * it: the test servers look ten times as often, so a test waiting for a mail is not waiting for
   * the next look.
   */
  mailPollMs: number;
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
  passwordHashCost: 14,
  mailPollMs: 1_000,
} satisfies Partial<Config>;

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
    webhooks: webhookSettings(e),
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
    oidc: oidcSettings(e),
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
    mailLeaseMs: LEASE_DEFAULTS.mailLeaseMs,
    exportLeaseMs: LEASE_DEFAULTS.exportLeaseMs,
    webhooks: DEFAULT_WEBHOOK_SETTINGS,
    ...FIXED,
    importAllowHosts: [],
    trustProxy: 'none' as const,
    corsOrigins: '*',
    logRequests: false,
    metricsToken: undefined,
    uploadUnattachedHours: UPLOAD_UNATTACHED_HOURS,
    oidc: undefined,
    ...overrides,
  };
  // Test files sign many users up from one address; the throttling tests set their own.
  return { ...config, ...limitSettings({ authAttemptsPerMinute: 10_000, ...overrides }) };
}

/** Unset and empty variables alike are left to the SDK's own lookup. */
function s3Settings(e: Env): S3Settings {
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
