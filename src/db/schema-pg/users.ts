import { boolean, index, integer, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, idColumn, updatedAt } from './columns';

/* The tables of `../schema/users.ts`, in PostgreSQL: same names, same columns, same rows. */

export const users = pgTable(
  'users',
  {
    id: idColumn(),
    email: text('email'),
    name: text('name').notNull(),
    passwordHash: text('password_hash'),
    guest: boolean('guest').notNull().default(false),
    avatarUrl: text('avatar_url'),
    planName: text('plan_name').notNull().default('free'),
    admin: boolean('admin').notNull().default(false),
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

export const authTokens = pgTable(
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

export const oneTimeTokens = pgTable(
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

export const outbox = pgTable(
  'outbox',
  {
    id: idColumn(),
    to: text('to').notNull(),
    subject: text('subject').notNull(),
    text: text('text').notNull(),
    html: text('html'),
    sentAt: text('sent_at'),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: text('next_attempt_at'),
    claimedUntil: text('claimed_until'),
    lastError: text('last_error'),
    failedAt: text('failed_at'),
    senderId: text('sender_id'),
    createdAt: createdAt(),
  },
  (t) => [
    index('outbox_pending').on(t.sentAt, t.failedAt, t.nextAttemptAt),
    index('outbox_sender').on(t.senderId, t.createdAt),
  ],
);

export const authState = pgTable('auth_state', {
  // The one row's id; optional on insert, as SQLite's integer primary key is.
  id: integer('id').primaryKey().default(1),
  epoch: integer('epoch').notNull().default(0),
});

export const digestRuns = pgTable('digest_runs', {
  day: text('day').primaryKey(),
  startedAt: text('started_at').notNull(),
});
