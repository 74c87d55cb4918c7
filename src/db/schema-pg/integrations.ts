import { sql } from 'drizzle-orm';
import { boolean, index, integer, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, idColumn, json, updatedAt } from './columns';
import { organizations } from './organizations';
import { users } from './users';

/* The tables of `../schema/integrations.ts`, in PostgreSQL. */

/**
 * An organization's webhook endpoints (docs/integrations.md#webhooks). `secret` signs deliveries;
 * after a rotation `previous_secret` signs them too until `previous_secret_until`.
 */
export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    id: idColumn(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    url: text('url').notNull(),
    /** JSON array of event types, or `["*"]`. */
    events: json<string[]>('events').notNull(),
    description: text('description').notNull().default(''),
    enabled: boolean('enabled').notNull().default(true),
    secret: text('secret').notNull(),
    previousSecret: text('previous_secret'),
    previousSecretUntil: text('previous_secret_until'),
    /** Set at the first failed attempt after a success; cleared by the next success. */
    failingSince: text('failing_since'),
    disabledAt: text('disabled_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [index('webhook_endpoints_organization').on(t.organizationId)],
);

/**
 * The webhook outbox: one row per event, written in the transaction of the change it tells of
 * (only when its organization has an endpoint listening). The sender expands each into a delivery
 * per endpoint listening to its type (`expanded`), in `seq` order. `id` is the `webhook-id` every
 * attempt to every endpoint carries; `body` is sent unchanged on every attempt.
 */
export const webhookMessages = pgTable(
  'webhook_messages',
  {
    seq: integer('seq').primaryKey().generatedByDefaultAsIdentity(),
    id: text('id').notNull(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    /** The workshop the event is about; for events about none (a ping), the message's own id. */
    lane: text('lane').notNull(),
    eventType: text('event_type').notNull(),
    body: text('body').notNull(),
    expanded: boolean('expanded').notNull().default(false),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('webhook_messages_id').on(t.id),
    index('webhook_messages_unexpanded')
      .on(t.seq)
      .where(sql`${t.expanded} = false`),
  ],
);

/**
 * A message's delivery to one endpoint. `seq` orders a lane (one endpoint, one workshop); the
 * message's id names it in the API.
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    seq: integer('seq').primaryKey().generatedByDefaultAsIdentity(),
    messageId: text('message_id').notNull(),
    endpointId: text('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id, { onDelete: 'cascade' }),
    lane: text('lane').notNull(),
    eventType: text('event_type').notNull(),
    status: text('status', { enum: ['pending', 'succeeded', 'failed'] })
      .notNull()
      .default('pending'),
    attempts: integer('attempts').notNull().default(0),
    lastStatusCode: integer('last_status_code'),
    lastError: text('last_error'),
    nextAttemptAt: text('next_attempt_at').notNull(),
    /** The lease of the instance sending it, unique to one taking. */
    claimedUntil: text('claimed_until'),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('webhook_deliveries_message').on(t.messageId, t.endpointId),
    index('webhook_deliveries_endpoint').on(t.endpointId, t.seq),
    // Only pending deliveries are looked for by these two: kept small, they cost a delivered row nothing.
    index('webhook_deliveries_due')
      .on(t.nextAttemptAt)
      .where(sql`${t.status} = 'pending'`),
    index('webhook_deliveries_lane')
      .on(t.endpointId, t.lane, t.seq)
      .where(sql`${t.status} = 'pending'`),
  ],
);

/** Accounts signed in through an OpenID provider: the provider's (issuer, subject) names the user. */
export const userIdentities = pgTable(
  'user_identities',
  {
    id: idColumn(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    issuer: text('issuer').notNull(),
    subject: text('subject').notNull(),
    /** The address the provider gave at the last sign-in. */
    email: text('email'),
    /**
     * Whether the account's address was proven when this identity was linked to it. Proving the
     * address ends the identities linked before it was (docs/api.md#an-address-is-proven-once).
     */
    addressProven: boolean('address_proven').notNull().default(false),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('user_identities_subject').on(t.issuer, t.subject), index('user_identities_user').on(t.userId)],
);

/**
 * Sign-ins sent to the OpenID provider and not yet back: found by the hash of their `state`, used
 * once, on whichever instance the provider returns the browser to.
 */
export const oidcLogins = pgTable(
  'oidc_logins',
  {
    id: idColumn(),
    stateHash: text('state_hash').notNull(),
    codeVerifier: text('code_verifier').notNull(),
    nonce: text('nonce').notNull(),
    returnTo: text('return_to').notNull(),
    /**
     * A one-time value the console's tab made and kept, carried through the provider and handed
     * back beside the token, so the tab takes only a token from a sign-in it started.
     */
    clientState: text('client_state'),
    expiresAt: text('expires_at').notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('oidc_logins_state').on(t.stateHash)],
);
