import { index, integer, pgTable, text } from 'drizzle-orm/pg-core';

/* The table of `../schema/limits.ts`, in PostgreSQL: same names, same columns, same rows. */

export const rateLimits = pgTable('rate_limits', {
  key: text('key').primaryKey(),
  points: integer('points').notNull(),
  expiresAt: text('expires_at').notNull(),
}, (t) => [index('rate_limits_expires').on(t.expiresAt)]);
