import { blob, index, integer, primaryKey, sqliteTable, text } from 'drizzle-orm/sqlite-core';
import { json } from '../columns';

/**
 * Rate-limit counters shared by the instances on this database, when they share no Redis
 * (`db/rate-counters.ts`): one row per limit and key (`limits:user-joins:<user id>`), holding the
 * points counted until `expires_at`, when the window starts again. Rows past it are swept.
 */
export const rateLimits = sqliteTable(
  'rate_limits',
  {
    key: text('key').primaryKey(),
    points: integer('points').notNull(),
    expiresAt: text('expires_at').notNull(),
  },
  (t) => [index('rate_limits_expires').on(t.expiresAt)],
);

/**
 * Writes sent with an `Idempotency-Key` (docs/api.md#idempotent-writes): one row per owner (a user's id, or '' for
 * the routes that need no token) and key (an HMAC of it). `status` is null while the first request
 * runs, held by `locked_until`, which the running request moves on; then the answer is kept until
 * `expires_at` (24 hours), when the maintenance sweep deletes it, its body sealed with the raw key
 * (`modules/idempotency/sealing.ts`). `fingerprint` is an HMAC of the method, the path and the
 * body, so a key reused for another request is told apart.
 */
export const idempotencyKeys = sqliteTable(
  'idempotency_keys',
  {
    owner: text('owner').notNull(),
    key: text('key').notNull(),
    fingerprint: text('fingerprint').notNull(),
    status: integer('status'),
    headers: json<Record<string, string>>('headers'),
    body: blob('body', { mode: 'buffer' }),
    lockedUntil: text('locked_until').notNull(),
    expiresAt: text('expires_at').notNull(),
  },
  (t) => [primaryKey({ columns: [t.owner, t.key] }), index('idempotency_keys_expires').on(t.expiresAt)],
);
