import { and, asc, desc, eq, isNull, lt, or } from 'drizzle-orm';
import { tablesOf, type Db, type Schema } from '../../db/database';

export type ApiTokenRow = Schema['apiTokens']['$inferSelect'];
type UserRow = Schema['users']['$inferSelect'];

/** Whose tokens: an organization's or a user's. */
export type TokenOwner = { organizationId: string } | { userId: string };

function ownedBy(db: Db, owner: TokenOwner) {
  const { apiTokens } = tablesOf(db);
  return 'organizationId' in owner
    ? eq(apiTokens.organizationId, owner.organizationId)
    : eq(apiTokens.userId, owner.userId);
}

export async function insertApiToken(
  tx: Db,
  values: Omit<ApiTokenRow, 'id' | 'createdAt' | 'lastUsedAt' | 'revokedAt' | 'signInMethod'> &
    Partial<Pick<ApiTokenRow, 'signInMethod'>>,
): Promise<ApiTokenRow> {
  const { apiTokens } = tablesOf(tx);
  return (await tx.insert(apiTokens).values(values).returning())[0]!;
}

/** Who made a token, as its lists name them. */
export interface TokenMaker {
  id: string;
  name: string;
  /** Set once the maker's account is deleted: the token is shown as made by a deleted user. */
  deletedAt?: string | null;
}

/** The owner's tokens not revoked, newest first, each with its maker. */
export async function liveTokensOf(
  db: Db,
  owner: TokenOwner,
): Promise<Array<{ token: ApiTokenRow; maker: TokenMaker }>> {
  const { apiTokens, users } = tablesOf(db);
  return db
    .select({ token: apiTokens, maker: { id: users.id, name: users.name, deletedAt: users.deletedAt } })
    .from(apiTokens)
    .innerJoin(users, eq(users.id, apiTokens.createdBy))
    .where(and(ownedBy(db, owner), isNull(apiTokens.revokedAt)))
    .orderBy(desc(apiTokens.createdAt), desc(apiTokens.id));
}

/** Marks the owner's token revoked (its trigger moves the identity epoch); false when there was none. */
export async function revokeApiToken(tx: Db, owner: TokenOwner, id: string, at: string): Promise<boolean> {
  const { apiTokens } = tablesOf(tx);
  const rows = await tx
    .update(apiTokens)
    .set({ revokedAt: at })
    .where(and(eq(apiTokens.id, id), ownedBy(tx, owner), isNull(apiTokens.revokedAt)))
    .returning({ id: apiTokens.id });
  return rows.length > 0;
}

/** The token by its hash, with the user it acts as: its owner, or for an organization's, its maker. */
export async function apiTokenWithUser(
  db: Db,
  tokenHash: string,
): Promise<{ token: ApiTokenRow; user: UserRow } | undefined> {
  const { apiTokens, users } = tablesOf(db);
  const [row] = await db
    .select({ token: apiTokens, user: users })
    .from(apiTokens)
    .innerJoin(users, eq(users.id, apiTokens.createdBy))
    .where(eq(apiTokens.tokenHash, tokenHash));
  return row;
}

/** Sets `last_used_at` unless another request (any instance) did within the last minute. */
export async function touchApiToken(tx: Db, id: string, at: string, unlessSince: string): Promise<void> {
  const { apiTokens } = tablesOf(tx);
  await tx
    .update(apiTokens)
    .set({ lastUsedAt: at })
    .where(and(eq(apiTokens.id, id), or(isNull(apiTokens.lastUsedAt), lt(apiTokens.lastUsedAt, unlessSince))));
}

/**
 * The organization's admin an organization token acts as: its maker while they are one, else the
 * admin of longest standing (an organization always keeps one). Undefined only for an organization
 * without admins, which the members' rules never leave.
 */
export async function actingAdmin(db: Db, organizationId: string, makerId: string): Promise<UserRow | undefined> {
  const { organizationMembers: m, users } = tablesOf(db);
  const admins = await db
    .select({ user: users })
    .from(m)
    .innerJoin(users, eq(users.id, m.userId))
    .where(and(eq(m.organizationId, organizationId), eq(m.role, 'admin')))
    .orderBy(asc(m.createdAt), asc(m.id));
  return (admins.find((row) => row.user.id === makerId) ?? admins[0])?.user;
}
