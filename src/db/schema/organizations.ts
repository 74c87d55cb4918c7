import { index, sqliteTable, text, uniqueIndex } from 'drizzle-orm/sqlite-core';
import { bool, createdAt, idColumn, updatedAt } from '../columns';
import { users } from './users';

export const organizations = sqliteTable('organizations', {
  id: idColumn(),
  name: text('name').notNull(),
  avatarUrl: text('avatar_url'),
  planName: text('plan_name').notNull().default('team'),
  /** Members' password sign-ins are refused on its workshops and routes (docs/integrations.md#single-sign-on). */
  ssoRequired: bool('sso_required').notNull().default(false),
  createdAt: createdAt(),
  updatedAt: updatedAt(),
});

/**
 * A member is either a user (user_id set) or an address invited before it had an account
 * (user_id null until that person signs up with the address).
 */
export const organizationMembers = sqliteTable(
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
