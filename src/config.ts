import { randomBytes } from 'node:crypto';
import { existsSync, linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import * as v from 'valibot';

/** Which proxy header, if any, names the client's address (see `Config.trustProxy`). */
export type TrustProxy = 'none' | 'forwarded' | 'fly';

/** A plan caps how many participants the owner's workshops may hold. */
export interface Plan {
  name: string;
  workshops_max_attendees: number;
}

/** Everything the service reads from its environment, parsed once at start. */
export interface Config {
  /** HTTP, Socket.IO and Yjs share this port. */
  port: number;
  /** SQLite file (WAL mode); `:memory:` is not supported because several connections share it. */
  databasePath: string;
  /** When set (`postgres://…`), everything is stored in PostgreSQL instead of `databasePath` (CONTRACT §10). */
  databaseUrl: string | undefined;
  /** PostgreSQL connections one instance keeps at most. */
  databasePoolSize: number;
  /** Uploaded and generated files (local storage driver). */
  filesDir: string;
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
  /** Plans by name; users start on `free`, organizations on `team`. */
  plans: Record<string, Plan>;
  /** Hosts a native-file import may fetch even though they resolve to private addresses. */
  importAllowHosts: string[];
  /** A native-file import's fetch gives up after this long (CONTRACT §7: 10 s). */
  importTimeoutMs: number;
  /** Imports from URLs one user may start per minute on one instance. */
  importsPerMinute: number;
  /** Invitation mails (workshops and organizations) one user's requests may send in 24 hours. */
  invitationMailsPerDay: number;
  /** Bearer tokens expire after this long without use. */
  tokenTtlMs: number;
  /** Wrong access codes a user or address may try per minute before 429. */
  joinAttemptsPerMinute: number;
  /**
   * Failed logins an account may take per minute before 429 (an address may fail three times as
   * many, on any accounts), and signups an address may make per minute.
   */
  authAttemptsPerMinute: number;
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
  importsPerMinute: 10,
  invitationMailsPerDay: 200,
  tokenTtlMs: 30 * 24 * 3600 * 1000,
  joinAttemptsPerMinute: 10,
  authAttemptsPerMinute: 10,
  liveRecheckMs: 30_000,
} satisfies Partial<Config>;

const EnvSchema = v.object({
  PORT: v.optional(
    v.pipe(v.string(), v.regex(/^\d{1,5}$/, 'expected a port number from 0 to 65535'), v.transform(Number), v.maxValue(65535, 'expected a port number from 0 to 65535')),
    '3000',
  ),
  DATABASE_PATH: v.optional(v.pipe(v.string(), v.minLength(1)), './data/workshops.db'),
  DATABASE_URL: v.optional(v.pipe(v.string(), v.regex(/^postgres(ql)?:\/\/\S+$/, 'expected a postgres:// URL'))),
  DATABASE_POOL_SIZE: v.optional(
    v.pipe(v.string(), v.regex(/^\d{1,3}$/, 'expected a number from 1 to 100'), v.transform(Number), v.minValue(1, 'expected a number from 1 to 100'), v.maxValue(100, 'expected a number from 1 to 100')),
    '10',
  ),
  FILES_DIR: v.optional(v.pipe(v.string(), v.minLength(1)), './data/files'),
  PUBLIC_URL: v.optional(v.pipe(v.string(), v.url())),
  SECRET: v.optional(v.pipe(v.string(), v.minLength(16))),
  REDIS_URL: v.optional(v.pipe(v.string(), v.url())),
  SMTP_URL: v.optional(v.pipe(v.string(), v.url())),
  MAIL_FROM: v.optional(v.string(), 'Workshops <no-reply@localhost>'),
  IMPORT_ALLOW_HOSTS: v.optional(v.string(), ''),
  LOG_REQUESTS: v.optional(v.picklist(['0', '1', 'true', 'false']), '1'),
  TRUST_PROXY: v.optional(v.picklist(['0', '1', 'true', 'false', 'fly']), '0'),
  CORS_ORIGINS: v.optional(v.pipe(v.string(), v.trim()), '*'),
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
  if (e.DATABASE_URL && !e.SECRET) throw new ConfigError('SECRET must be set when DATABASE_URL is: every instance sharing the database must sign links with the same secret.');
  return {
    port: e.PORT,
    databasePath: e.DATABASE_PATH,
    databaseUrl: e.DATABASE_URL,
    databasePoolSize: e.DATABASE_POOL_SIZE,
    filesDir: e.FILES_DIR,
    publicUrl: (e.PUBLIC_URL ?? `http://localhost:${e.PORT}`).replace(/\/+$/, ''),
    secret: e.SECRET ?? persistentSecret(dirname(e.DATABASE_PATH)),
    redisUrl: e.REDIS_URL,
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM,
    ...FIXED,
    importAllowHosts: e.IMPORT_ALLOW_HOSTS.split(',').map((h) => h.trim().toLowerCase()).filter(Boolean),
    trustProxy: e.TRUST_PROXY === 'fly' ? 'fly' : e.TRUST_PROXY === '1' || e.TRUST_PROXY === 'true' ? 'forwarded' : 'none',
    corsOrigins: e.CORS_ORIGINS === '*' || e.CORS_ORIGINS === '' ? '*' : e.CORS_ORIGINS.split(',').map((o) => o.trim().replace(/\/+$/, '')).filter(Boolean),
    logRequests: e.LOG_REQUESTS === '1' || e.LOG_REQUESTS === 'true',
  };
}

/** Builds a Config for tests and tools: defaults, then the given overrides. */
export function testConfig(overrides: Partial<Config> & Pick<Config, 'databasePath' | 'filesDir'>): Config {
  return {
    port: 0,
    databaseUrl: undefined,
    databasePoolSize: 10,
    publicUrl: 'http://localhost',
    secret: randomBytes(32).toString('hex'),
    redisUrl: undefined,
    smtpUrl: undefined,
    mailFrom: 'Workshops <no-reply@localhost>',
    ...FIXED,
    // Test files sign many users up from one address; the throttling tests set their own.
    authAttemptsPerMinute: 10_000,
    importAllowHosts: [],
    trustProxy: 'none',
    corsOrigins: '*',
    logRequests: false,
    ...overrides,
  };
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
