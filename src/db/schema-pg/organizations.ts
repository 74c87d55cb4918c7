import { boolean, index, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, idColumn, updatedAt } from './columns';
import { users } from './users';

/* The tables of `../schema/organizations.ts`, in PostgreSQL. */

export const organizations = pgTable('organizations', {
  id: idColumn(),
  name: text('name').notNull(),
  avatarUrl: text('avatar_url'),
  planName: text('plan_name').notNull().default('team'),
  /** Members' password sign-ins are refused on its workshops and routes (docs/integrations.md#single-sign-on). */
  ssoRequired: boolean('sso_required').notNull().default(false),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

export const organizationMembers = pgTable(
  'organization_members',
  {
    id: idColumn(),
    organizationId: text('organization_id')
      .notNull()
      .references(() => organizations.id, { onDelete: 'cascade' }),
    userId: text('user_id').references(() => users.id, { onDelete: 'cascade' }),
    email: text('email').notNull(),
    role: text('role', { enum: ['facilitator', 'admin'] }).notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex('organization_members_org_email').on(t.organizationId, t.email),
    index('organization_members_user').on(t.userId),
    index('organization_members_email').on(t.email),
  ],
);
