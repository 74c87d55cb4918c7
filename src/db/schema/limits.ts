import { index, integer, sqliteTable, text } from 'drizzle-orm/sqlite-core';

/**
 * Rate-limit counters shared by the instances on this database, when they share no Redis
 * (`db/rate-counters.ts`): one row per limit and key (`limits:user-joins:<user id>`), holding the
 * points counted until `expires_at`, when the window starts again. Rows past it are swept.
 */
export const rateLimits = sqliteTable('rate_limits', {
  key: text('key').primaryKey(),
  points: integer('points').notNull(),
  expiresAt: text('expires_at').notNull(),
}, (t) => [index('rate_limits_expires').on(t.expiresAt)]);
