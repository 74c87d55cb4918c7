import { index, pgTable, text, uniqueIndex } from 'drizzle-orm/pg-core';
import { createdAt, idColumn, json } from './columns';
import { organizations } from './organizations';
import { users } from './users';

/**
 * The table of `../schema/api-tokens.ts`, in PostgreSQL. Scoped API tokens (docs/integrations.md): owned by an organization or by a user, one of the two.
 * Only the secret's SHA-256 is kept; `prefix` is its first characters, shown in lists.
 */
export const apiTokens = pgTable(
  'api_tokens',
  {
    id: idColumn(),
    organizationId: text('organization_id').references(() => organizations.id, { onDelete: 'cascade' }),
    userId: text('user_id').references(() => users.id, { onDelete: 'cascade' }),
    /** Who made it: an organization token acts as this admin while they are one (then as another admin). */
    createdBy: text('created_by')
      .notNull()
      .references(() => users.id, { onDelete: 'cascade' }),
    /**
     * How the session that made a personal token was opened; null for an organization's token. A
     * token made from a password session never reaches an organization requiring single sign-on.
     */
    signInMethod: text('sign_in_method', { enum: ['password', 'oidc'] }),
    name: text('name').notNull(),
    /** JSON array of scope names (`domain/api-scopes.ts`). */
    scopes: json<string[]>('scopes').notNull(),
    prefix: text('prefix').notNull(),
    tokenHash: text('token_hash').notNull(),
    createdAt: createdAt(),
    expiresAt: text('expires_at'),
    /** Written at most once a minute per token (`modules/api-tokens/resolve.ts`). */
    lastUsedAt: text('last_used_at'),
    revokedAt: text('revoked_at'),
  },
  (t) => [
    uniqueIndex('api_tokens_hash_unique').on(t.tokenHash),
    index('api_tokens_organization').on(t.organizationId),
    index('api_tokens_user').on(t.userId),
  ],
);
