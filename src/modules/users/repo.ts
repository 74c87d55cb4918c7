import { and, asc, eq, isNotNull } from 'drizzle-orm';
import { nowIso } from '../../db/columns';
import { tablesOf, type Db, type Schema } from '../../db/database';
import { inList } from '../../db/sql';
import { DELETED_USER_NAME } from '../../domain/users';
import { toUserSummary, type UserSummary } from './schemas';

/**
 * What others see of these users (name, avatar, guest), in the order they signed up (so an export
 * is the same whichever store it was read from). One query for any number of ids.
 */
export async function userSummaries(db: Db, ids: Iterable<string>): Promise<UserSummary[]> {
  const list = [...new Set(ids)];
  if (list.length === 0) return [];
  const { users } = tablesOf(db);
  const rows = await db
    .select({
      id: users.id,
      name: users.name,
      avatarUrl: users.avatarUrl,
      guest: users.guest,
      deletedAt: users.deletedAt,
    })
    .from(users)
    .where(inList(db, users.id, list))
    .orderBy(asc(users.createdAt), asc(users.id));
  // A deleted account's row stays for the votes and ratings it cast, named as a deleted user.
  return rows.map((row) => toUserSummary(row.deletedAt === null ? row : { ...row, name: DELETED_USER_NAME }));
}

/** The id of the account with this address, if any. */
export async function userIdByEmail(db: Db, email: string): Promise<string | undefined> {
  const { users } = tablesOf(db);
  const [found] = await db.select({ id: users.id }).from(users).where(eq(users.email, email));
  return found?.id;
}

/** The locale of the account with this address, if any: the language of mails to it. */
export async function localeByEmail(db: Db, email: string): Promise<string | undefined> {
  const { users } = tablesOf(db);
  const [found] = await db.select({ locale: users.locale }).from(users).where(eq(users.email, email));
  return found?.locale;
}

export async function findUser(db: Db, userId: string): Promise<Schema['users']['$inferSelect'] | undefined> {
  const { users } = tablesOf(db);
  return (await db.select().from(users).where(eq(users.id, userId)))[0];
}

/** Sets the members of the profile given (name, locale, time zone); the others keep their value. */
export async function updateProfile(
  tx: Db,
  userId: string,
  values: Partial<Pick<Schema['users']['$inferInsert'], 'name' | 'locale' | 'timeZone'>>,
): Promise<void> {
  const { users } = tablesOf(tx);
  await tx
    .update(users)
    .set({ ...values, updatedAt: nowIso() })
    .where(eq(users.id, userId));
}

export async function avatarUrlOf(tx: Db, userId: string): Promise<string | null> {
  const { users } = tablesOf(tx);
  const [user] = await tx.select({ url: users.avatarUrl }).from(users).where(eq(users.id, userId));
  return user?.url ?? null;
}

/** Answers the user's row as it now is, or undefined when the user is gone. */
export async function setAvatarUrl(
  tx: Db,
  userId: string,
  url: string | null,
): Promise<Schema['users']['$inferSelect'] | undefined> {
  const { users } = tablesOf(tx);
  const [user] = await tx
    .update(users)
    .set({ avatarUrl: url, updatedAt: nowIso() })
    .where(eq(users.id, userId))
    .returning();
  return user;
}

/** A guest: a name, a locale and a time zone, no address or password. */
export async function insertGuest(
  tx: Db,
  values: { name: string; locale: string; timeZone: string },
): Promise<Schema['users']['$inferSelect']> {
  const { users } = tablesOf(tx);
  return (
    await tx
      .insert(users)
      .values({ ...values, guest: true })
      .returning()
  )[0]!;
}

/** The deleted accounts among these ids (docs/api.md#an-accounts-life): one query, none for no ids. */
export async function deletedAmong(db: Db, ids: Iterable<string>): Promise<Set<string>> {
  const list = [...new Set(ids)];
  if (list.length === 0) return new Set();
  const { users } = tablesOf(db);
  const rows = await db
    .select({ id: users.id })
    .from(users)
    .where(and(inList(db, users.id, list), isNotNull(users.deletedAt)));
  return new Set(rows.map((row) => row.id));
}

/**
 * Votes or ratings as others read them: a deleted account's keep counting, with `user_id` null
 * (docs/api.md#an-accounts-life). One query for the lot.
 */
export async function withDeletedVotersHidden<T extends { user_id: string | null }>(
  db: Db,
  outputs: T[],
): Promise<T[]> {
  const ids = outputs.flatMap((output) => (output.user_id === null ? [] : [output.user_id]));
  const deleted = await deletedAmong(db, ids);
  if (deleted.size === 0) return outputs;
  return outputs.map((output) =>
    output.user_id !== null && deleted.has(output.user_id) ? { ...output, user_id: null } : output,
  );
}
