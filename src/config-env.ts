import * as v from 'valibot';
import { LIMITS, type LimitName } from './config-limits';

/** The environment variables the service reads, checked and given their defaults before `loadConfig` maps them. */

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

/** Stays an exact integer in every counter, and within the database's integer column. */
const LIMIT_MAX = 1_000_000_000;
const limitValue = wholeNumber(0, LIMIT_MAX, `expected a whole number from 0 (no limit) to ${LIMIT_MAX}`);
/** Each limit's variable; unset, `limitSettings` gives it its default. */
const limitVariables = Object.fromEntries(Object.values(LIMITS).map(({ env }) => [env, v.optional(limitValue)])) as {
  [K in LimitName as (typeof LIMITS)[K]['env']]: v.OptionalSchema<typeof limitValue, undefined>;
};

/** The leases' defaults when their variables are unset; tests start from them too. */
export const LEASE_DEFAULTS = {
  mailLeaseMs: 120_000,
  exportLeaseMs: 300_000,
  webhookLeaseMs: 60_000,
} as const;

/**
 * Seconds between a webhook delivery's attempts: about a day in all, then it is given up
 * (docs/integrations.md#retries-and-order). Each wait is drawn within ±20 % of its value.
 */
export const WEBHOOK_RETRY_SCHEDULE = '10,60,300,1800,3600,7200,14400,28800,28800';

/** Hours an upload attached to nothing is kept by default. */
export const UPLOAD_UNATTACHED_HOURS = 24;

/** The longest timer Node arms (about 24.8 days): a lease's end is waited for with one. */
const LONGEST_TIMER_MS = 2_147_483_647;
const leaseVariable = (fallback: number) =>
  v.optional(
    wholeNumber(1000, LONGEST_TIMER_MS, `expected a whole number of milliseconds, from 1000 to ${LONGEST_TIMER_MS}`),
    String(fallback),
  );

export const EnvSchema = v.object({
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
  // A provider off the machine is reached over https; plain http only on this machine (tests, development).
  OIDC_ISSUER: v.optional(
    v.pipe(
      v.string(),
      v.url("expected the provider's issuer URL"),
      v.regex(
        /^(https:\/\/|http:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d+)?(\/|$))/,
        'expected an https URL (plain http only for localhost or 127.0.0.1)',
      ),
    ),
  ),
  OIDC_CLIENT_ID: v.optional(v.pipe(v.string(), v.minLength(1))),
  OIDC_CLIENT_SECRET: v.optional(v.pipe(v.string(), v.minLength(1))),
  OIDC_NAME: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(60))),
  METRICS_TOKEN: v.optional(v.pipe(v.string(), v.regex(/^\S{16,}$/, 'expected at least 16 characters, no spaces'))),
  ...limitVariables,
  MAIL_LEASE_MS: leaseVariable(LEASE_DEFAULTS.mailLeaseMs),
  EXPORT_LEASE_MS: leaseVariable(LEASE_DEFAULTS.exportLeaseMs),
  WEBHOOK_LEASE_MS: leaseVariable(LEASE_DEFAULTS.webhookLeaseMs),
  WEBHOOK_RETRY_SCHEDULE: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d{1,7}(,\d{1,7}){0,29}$/, 'expected up to 30 whole numbers of seconds, separated by commas'),
      v.transform((list) => list.split(',').map(Number)),
    ),
    WEBHOOK_RETRY_SCHEDULE,
  ),
  WEBHOOK_DISABLE_AFTER_HOURS: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d{1,5}(\.\d{1,6})?$/, 'expected a number of hours such as 72 or 0.5'),
      v.transform(Number),
      v.minValue(0.0001, 'expected more than 0 hours'),
    ),
    '72',
  ),
  WEBHOOK_ALLOW_PRIVATE: v.optional(v.picklist(['0', '1', 'true', 'false']), '0'),
  UPLOAD_UNATTACHED_HOURS: v.optional(
    wholeNumber(1, 87_600, 'expected a whole number of hours, from 1 to 87600'),
    String(UPLOAD_UNATTACHED_HOURS),
  ),
});

/** The environment once checked, its defaults filled in. */
export type Env = v.InferOutput<typeof EnvSchema>;

/** A setting that cannot be used; its message is one line naming the variable and its value. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}
