import { and, desc, eq, gt, isNull } from 'drizzle-orm';
import { tablesOf, type Db, type Schema } from '../../db/database';
import type { SignInMethod } from './repo';

type OneTimeTokenRow = Schema['oneTimeTokens']['$inferSelect'];

/*
 * The queries of an account's life (docs/api.md#an-accounts-life): one-time links that replace
 * the ones before, passwords and addresses set, and the list of the account's sessions.
 */

/** Uses up the user's links of this purpose still unused: only the one made next works. */
export async function endUnusedLinks(
  tx: Db,
  userId: string,
  purpose: OneTimeTokenRow['purpose'],
  at: string,
): Promise<void> {
  const { oneTimeTokens } = tablesOf(tx);
  await tx
    .update(oneTimeTokens)
    .set({ usedAt: at })
    .where(and(eq(oneTimeTokens.userId, userId), eq(oneTimeTokens.purpose, purpose), isNull(oneTimeTokens.usedAt)));
}

/**
 * Uses the link up, if it still was unused: false when another request used it first (two requests
 * with one link, on any instances, cannot both pass).
 */
export async function useLink(tx: Db, id: string, at: string): Promise<boolean> {
  const { oneTimeTokens } = tablesOf(tx);
  const used = await tx
    .update(oneTimeTokens)
    .set({ usedAt: at })
    .where(and(eq(oneTimeTokens.id, id), isNull(oneTimeTokens.usedAt)))
    .returning({ id: oneTimeTokens.id });
  return used.length === 1;
}

export async function setPasswordHash(tx: Db, userId: string, passwordHash: string, at: string): Promise<void> {
  const { users } = tablesOf(tx);
  await tx.update(users).set({ passwordHash, updatedAt: at }).where(eq(users.id, userId));
}

/** The account's address is now `email`, proven at `at`. */
export async function setProvenEmail(tx: Db, userId: string, email: string, at: string): Promise<void> {
  const { users } = tablesOf(tx);
  await tx.update(users).set({ email, confirmedAt: at, updatedAt: at }).where(eq(users.id, userId));
}

export interface SessionRow {
  id: string;
  tokenHash: string;
  method: SignInMethod;
  createdAt: string;
  lastUsedAt: string;
  userAgent: string | null;
}

/** The user's sessions still in force, the newest first. */
export async function sessionsOf(db: Db, userId: string, now: string): Promise<SessionRow[]> {
  const { authTokens } = tablesOf(db);
  return db
    .select({
      id: authTokens.id,
      tokenHash: authTokens.tokenHash,
      method: authTokens.method,
      createdAt: authTokens.createdAt,
      lastUsedAt: authTokens.lastUsedAt,
      userAgent: authTokens.userAgent,
    })
    .from(authTokens)
    .where(and(eq(authTokens.userId, userId), gt(authTokens.expiresAt, now)))
    .orderBy(desc(authTokens.createdAt), desc(authTokens.id));
}

/** Ends the user's session with this id; answers its token's hash, undefined when the user has none such. */
export async function deleteSessionById(tx: Db, userId: string, id: string): Promise<string | undefined> {
  const { authTokens } = tablesOf(tx);
  const [row] = await tx
    .delete(authTokens)
    .where(and(eq(authTokens.userId, userId), eq(authTokens.id, id)))
    .returning({ tokenHash: authTokens.tokenHash });
  return row?.tokenHash;
}
