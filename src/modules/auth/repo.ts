import { and, eq, isNull, ne, sql } from 'drizzle-orm';
import { nowIso } from '../../db/columns';
import { tablesOf, type Db, type Schema } from '../../db/database';
import { named, preparedPerDb } from '../../db/prepared';

type UserRow = Schema['users']['$inferSelect'];
type OneTimeTokenRow = Schema['oneTimeTokens']['$inferSelect'];
/** How a session was opened: with a password (login, signup) or through the OpenID provider. */
export type SignInMethod = Schema['authTokens']['$inferSelect']['method'];

type AccountValues = { email: string; name: string; passwordHash: string; locale: string; timeZone: string };

export async function insertAccount(tx: Db, values: AccountValues): Promise<UserRow> {
  const { users } = tablesOf(tx);
  return (await tx.insert(users).values(values).returning())[0]!;
}

/** The guest's row becomes an account; undefined when it is no guest (any more). */
export async function upgradeGuestRow(tx: Db, guestId: string, values: AccountValues): Promise<UserRow | undefined> {
  const { users } = tablesOf(tx);
  const [user] = await tx
    .update(users)
    .set({ ...values, guest: false, updatedAt: nowIso() })
    .where(and(eq(users.id, guestId), eq(users.guest, true)))
    .returning();
  return user;
}

export async function userByEmail(db: Db, email: string): Promise<UserRow | undefined> {
  const { users } = tablesOf(db);
  const [user] = await db.select().from(users).where(eq(users.email, email));
  return user;
}

export async function deleteAuthToken(tx: Db, tokenHash: string): Promise<void> {
  const { authTokens } = tablesOf(tx);
  await tx.delete(authTokens).where(eq(authTokens.tokenHash, tokenHash));
}

export async function insertAuthToken(
  tx: Db,
  values: {
    userId: string;
    tokenHash: string;
    lastUsedAt: string;
    expiresAt: string;
    method: SignInMethod;
    identityId: string | null;
    userAgent: string | null;
  },
): Promise<void> {
  const { authTokens } = tablesOf(tx);
  await tx.insert(authTokens).values(values);
}

export async function oneTimeTokenByHash(tx: Db, tokenHash: string): Promise<OneTimeTokenRow | undefined> {
  const { oneTimeTokens } = tablesOf(tx);
  const [row] = await tx.select().from(oneTimeTokens).where(eq(oneTimeTokens.tokenHash, tokenHash));
  return row;
}

export async function insertOneTimeToken(
  tx: Db,
  values: {
    userId: string;
    purpose: OneTimeTokenRow['purpose'];
    tokenHash: string;
    expiresAt: string;
    /** The new address a `change_email` link confirms. */
    email?: string;
  },
): Promise<void> {
  const { oneTimeTokens } = tablesOf(tx);
  await tx.insert(oneTimeTokens).values(values);
}

/** Marks the user's address confirmed at `at`, unless it already was; answers the address. */
export async function confirmAddress(tx: Db, userId: string, at: string): Promise<string | null | undefined> {
  const { users } = tablesOf(tx);
  await tx
    .update(users)
    .set({ confirmedAt: at, updatedAt: at })
    .where(and(eq(users.id, userId), isNull(users.confirmedAt)));
  const [user] = await tx.select({ email: users.email }).from(users).where(eq(users.id, userId));
  return user?.email;
}

/*
 * The ways into an account a proof of its address ends (`address-proof.ts`). Personal API tokens
 * and provider identities are other modules' tables, but these statements answer one question of
 * this module's, who may still get in, and the modules that own those tables import this one.
 */

/** The user's session of this token (by hash), with the provider identity it came by; undefined for another's. */
export async function sessionOf(
  tx: Db,
  userId: string,
  tokenHash: string,
): Promise<{ identityId: string | null } | undefined> {
  const { authTokens } = tablesOf(tx);
  const [row] = await tx
    .select({ identityId: authTokens.identityId })
    .from(authTokens)
    .where(and(eq(authTokens.userId, userId), eq(authTokens.tokenHash, tokenHash)));
  return row;
}

/** Ends every session of the user but `keep` (a token's hash, or none); answers the hashes ended. */
export async function deleteSessionsExcept(tx: Db, userId: string, keep: string | null): Promise<string[]> {
  const { authTokens } = tablesOf(tx);
  const mine = eq(authTokens.userId, userId);
  const rows = await tx
    .delete(authTokens)
    .where(keep === null ? mine : and(mine, ne(authTokens.tokenHash, keep)))
    .returning({ tokenHash: authTokens.tokenHash });
  return rows.map((row) => row.tokenHash);
}

/** Revokes the user's personal API tokens still in force (their trigger moves the identity epoch). */
export async function revokePersonalApiTokens(tx: Db, userId: string, at: string): Promise<void> {
  const { apiTokens } = tablesOf(tx);
  await tx
    .update(apiTokens)
    .set({ revokedAt: at })
    .where(and(eq(apiTokens.userId, userId), isNull(apiTokens.revokedAt)));
}

/** Removes the provider identities linked to the user while the address was not proven. */
export async function deleteUnprovenIdentities(tx: Db, userId: string): Promise<void> {
  const { userIdentities } = tablesOf(tx);
  await tx
    .delete(userIdentities)
    .where(and(eq(userIdentities.userId, userId), eq(userIdentities.addressProven, false)));
}

/** The identity is the mailbox owner's: later proofs keep it. */
export async function markIdentityProven(tx: Db, userId: string, identityId: string): Promise<void> {
  const { userIdentities } = tablesOf(tx);
  await tx
    .update(userIdentities)
    .set({ addressProven: true })
    .where(and(eq(userIdentities.userId, userId), eq(userIdentities.id, identityId)));
}

/** The user has no password from now on: a login with any answers `invalid_credentials`. */
export async function clearPassword(tx: Db, userId: string, at: string): Promise<void> {
  const { users } = tablesOf(tx);
  await tx.update(users).set({ passwordHash: null, updatedAt: at }).where(eq(users.id, userId));
}

/** The user's password hash as stored now (null without one, undefined without the user). */
export async function passwordHashOf(tx: Db, userId: string): Promise<string | null | undefined> {
  const { users } = tablesOf(tx);
  const [row] = await tx.select({ passwordHash: users.passwordHash }).from(users).where(eq(users.id, userId));
  return row?.passwordHash;
}

/** Every request resolves its token: these statements are prepared once per connection. */
const queries = preparedPerDb((db: Db) => {
  const { authTokens, users } = tablesOf(db);
  const p = sql.placeholder;
  return {
    find: named(
      db
        .select({
          tokenId: authTokens.id,
          expiresAt: authTokens.expiresAt,
          lastUsedAt: authTokens.lastUsedAt,
          method: authTokens.method,
          user: users,
        })
        .from(authTokens)
        .innerJoin(users, eq(users.id, authTokens.userId))
        .where(eq(authTokens.tokenHash, p('tokenHash'))),
      'auth_token_user',
    ),
    expiry: named(
      db
        .select({ expiresAt: authTokens.expiresAt })
        .from(authTokens)
        .where(eq(authTokens.tokenHash, p('tokenHash'))),
      'auth_token_expiry',
    ),
    slide: named(
      db
        .update(authTokens)
        .set({ lastUsedAt: sql`${p('lastUsedAt')}`, expiresAt: sql`${p('expiresAt')}` })
        .where(eq(authTokens.id, p('id'))),
      'auth_token_slide',
    ),
  };
});

/** The token (by hash) with its user. */
export async function tokenWithUser(
  db: Db,
  tokenHash: string,
): Promise<
  { tokenId: string; expiresAt: string; lastUsedAt: string; method: SignInMethod; user: UserRow } | undefined
> {
  const [row] = await queries(db).find.execute({ tokenHash });
  return row;
}

export async function tokenExpiry(db: Db, tokenHash: string): Promise<string | undefined> {
  const [row] = await queries(db).expiry.execute({ tokenHash });
  return row?.expiresAt;
}

export async function slideToken(tx: Db, slid: { id: string; lastUsedAt: string; expiresAt: string }): Promise<void> {
  await queries(tx).slide.execute(slid);
}
