import { ConfigError, LEASE_DEFAULTS, WEBHOOK_RETRY_SCHEDULE, type Env } from './config-env';

/* The settings of the integrations (docs/integrations.md): webhook deliveries, and sign-in through an OpenID provider. */

/** How webhook deliveries are made (docs/integrations.md#webhooks). */
export interface WebhookSettings {
  /** Seconds between attempts, each drawn within ±20 %; past the last, a delivery is given up. */
  retryScheduleS: number[];
  /** An endpoint failing this long (every attempt since its last success) is disabled and its organization's admins mailed. */
  disableAfterHours: number;
  /** Deliveries to private, loopback and link-local addresses are let through (tests, private networks). */
  allowPrivate: boolean;
  /** How long a delivery taken for sending stays that instance's; past it (the instance died) another sends it. */
  leaseMs: number;
}

/** The webhook settings when their variables are unset; tests start from them too. */
export const DEFAULT_WEBHOOK_SETTINGS: WebhookSettings = {
  retryScheduleS: WEBHOOK_RETRY_SCHEDULE.split(',').map(Number),
  disableAfterHours: 72,
  allowPrivate: false,
  leaseMs: LEASE_DEFAULTS.webhookLeaseMs,
};

export function webhookSettings(e: Env): WebhookSettings {
  return {
    retryScheduleS: e.WEBHOOK_RETRY_SCHEDULE,
    disableAfterHours: e.WEBHOOK_DISABLE_AFTER_HOURS,
    allowPrivate: e.WEBHOOK_ALLOW_PRIVATE === '1' || e.WEBHOOK_ALLOW_PRIVATE === 'true',
    leaseMs: e.WEBHOOK_LEASE_MS,
  };
}

/**
 * The OpenID Connect provider people may sign in with (docs/integrations.md#single-sign-on): its
 * issuer URL, this service's client there, and the name the console's button shows.
 */
export interface OidcSettings {
  issuer: string;
  clientId: string;
  clientSecret: string;
  name: string;
}

/** The three variables come together or not at all: a half-configured provider is a mistake to say at start. */
export function oidcSettings(e: Env): OidcSettings | undefined {
  const set = {
    OIDC_ISSUER: e.OIDC_ISSUER,
    OIDC_CLIENT_ID: e.OIDC_CLIENT_ID,
    OIDC_CLIENT_SECRET: e.OIDC_CLIENT_SECRET,
  };
  const missing = Object.entries(set).filter(([, value]) => !value);
  if (missing.length === 3) return undefined;
  if (missing.length > 0) {
    throw new ConfigError(
      `OIDC_ISSUER, OIDC_CLIENT_ID and OIDC_CLIENT_SECRET must be set together: ${missing.map(([name]) => name).join(' and ')} ${missing.length > 1 ? 'are' : 'is'} missing.`,
    );
  }
  const issuer = e.OIDC_ISSUER!;
  return {
    issuer,
    clientId: e.OIDC_CLIENT_ID!,
    clientSecret: e.OIDC_CLIENT_SECRET!,
    name: e.OIDC_NAME ?? new URL(issuer).hostname,
  };
}
