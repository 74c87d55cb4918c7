import { index, integer, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { bool, createdAt, idColumn, updatedAt } from '../columns';

export const users = sqliteTable(
  'users',
  {
    id: idColumn(),
    /** Stored lower-cased so look-ups ignore case; null for a guest (docs/api.md#guests). */
    email: text('email'),
    name: text('name').notNull(),
    /** Null for a guest, who has no password until they sign up. */
    passwordHash: text('password_hash'),
    /** Joined a workshop with its code and a name only; their token works for that workshop alone. */
    guest: bool('guest').notNull().default(false),
    avatarUrl: text('avatar_url'),
    planName: text('plan_name').notNull().default('free'),
    admin: bool('admin').notNull().default(false),
    confirmedAt: text('confirmed_at'),
    /** The language of the console and of mails to this person (docs/api.md#languages-and-time-zones). */
    locale: text('locale').notNull().default('en'),
    /** An IANA time zone, stored canonical: their times, and when their daily digest goes out (07:00 there). */
    timeZone: text('time_zone').notNull().default('UTC'),
    /**
     * Set when the account was deleted (docs/api.md#an-accounts-life): the row stays, scrubbed, so
     * the votes and ratings it cast stay counted; it never signs in nor is found by address again.
     */
    deletedAt: text('deleted_at'),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
  },
  (t) => [uniqueIndex('users_email_unique').on(t.email)],
);

/** Bearer tokens, kept only as a SHA-256 hash. */
export const authTokens = sqliteTable(
  'auth_tokens',
  {
    id: idColumn(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    tokenHash: text('token_hash').notNull(),
    /** How the session was opened: `sso_required` organizations refuse `password` ones. */
    method: text('method', { enum: ['password', 'oidc'] })
      .notNull()
      .default('password'),
    /**
     * The provider identity a session opened through the provider came by: a proof of the address
     * sent with this session keeps that identity (docs/api.md#an-address-is-proven-once).
     */
    identityId: text('identity_id'),
    /** The `User-Agent` of the request that opened the session, shown in the list of sessions. */
    userAgent: text('user_agent'),
    expiresAt: text('expires_at').notNull(),
    lastUsedAt: text('last_used_at').notNull(),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('auth_tokens_hash_unique').on(t.tokenHash), index('auth_tokens_user').on(t.userId)],
);

/** Single-use tokens mailed to users (e-mail confirmation). */
export const oneTimeTokens = sqliteTable(
  'one_time_tokens',
  {
    id: idColumn(),
    userId: text('user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /**
     * What the link proves: the account's address (`confirm_email`), a password reset, or a new
     * address (`change_email`, which holds it in `email`) (docs/api.md#an-accounts-life).
     */
    purpose: text('purpose', { enum: ['confirm_email', 'reset_password', 'change_email'] }).notNull(),
    /** The new address a `change_email` link confirms. */
    email: text('email'),
    tokenHash: text('token_hash').notNull(),
    expiresAt: text('expires_at').notNull(),
    usedAt: text('used_at'),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex('one_time_tokens_hash_unique').on(t.tokenHash)],
);

/** Mail waiting to be sent (or kept, when no SMTP server is configured). */
export const outbox = sqliteTable(
  'outbox',
  {
    id: idColumn(),
    to: text('to').notNull(),
    subject: text('subject').notNull(),
    text: text('text').notNull(),
    html: text('html'),
    sentAt: text('sent_at'),
    /** Delivery attempts so far (the sender's). */
    attempts: integer('attempts').notNull().default(0),
    /** Not tried again before this instant (backoff after a failure). */
    nextAttemptAt: text('next_attempt_at'),
    /** A sender on some instance holds the mail until this instant; others leave it alone. */
    claimedUntil: text('claimed_until'),
    lastError: text('last_error'),
    /** Set when the sender gave up (too many failed attempts). */
    failedAt: text('failed_at'),
    /** The user whose request mailed an address of their choosing (invitations), for their daily budget. */
    senderId: text('sender_id'),
    createdAt: createdAt(),
  },
  (t) => [
    index('outbox_pending').on(t.sentAt, t.failedAt, t.nextAttemptAt),
    index('outbox_sender').on(t.senderId, t.createdAt),
  ],
);

/**
 * One row whose `epoch` moves whenever a token is deleted (logout), a user row or an organization
 * changes, by triggers (migrations `0003`, `0004`), whichever connection or instance made the
 * change. Caches of resolved tokens and of answers showing users or organizations hold the epoch
 * they were filled at and are dropped when it moved.
 */
export const authState = sqliteTable('auth_state', {
  id: integer('id').primaryKey(),
  epoch: integer('epoch').notNull().default(0),
});

/**
 * One row per time zone and day the daily digest ran (`"<local date>|<zone>"`; before digests
 * followed time zones, `"<UTC date>"`), written by whichever instance started it first: the others
 * see the row and send nothing, so each digest goes out once.
 */
export const digestRuns = sqliteTable('digest_runs', {
  day: text('day').primaryKey(),
  startedAt: text('started_at').notNull(),
});
