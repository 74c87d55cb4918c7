import { index, integer, pgTable, primaryKey, text } from 'drizzle-orm/pg-core';
import { bytes, json } from './columns';

/* The table of `../schema/limits.ts`, in PostgreSQL: same names, same columns, same rows. */

export const rateLimits = pgTable(
  'rate_limits',
  {
    key: text('key').primaryKey(),
    points: integer('points').notNull(),
    expiresAt: text('expires_at').notNull(),
  },
  (t) => [index('rate_limits_expires').on(t.expiresAt)],
);

export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    owner: text('owner').notNull(),
    key: text('key').notNull(),
    fingerprint: text('fingerprint').notNull(),
    status: integer('status'),
    headers: json<Record<string, string>>('headers'),
    body: bytes('body'),
    lockedUntil: text('locked_until').notNull(),
    expiresAt: text('expires_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.owner, t.key] }), index('idempotency_keys_expires').on(t.expiresAt)],
);
