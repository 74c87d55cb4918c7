import { eq, inArray } from 'drizzle-orm';
import { tablesOf, type Db } from '../../db/database';
import { forUpdate } from '../../db/sql';
import { toUserSummary, type UserSummary } from './schemas';

/**
 * Locks the user's row for the rest of the transaction, so a cap on what one user has (invitation
 * mails in a day, exports pending) and their avatar are counted, read and written by one request
 * at a time, on any instance. A write to a workshop or an organization locks that first
 * (`lockWorkshop`, `lockOrganization`) and the user after, always in that order.
 */
export async function lockUser(tx: Db, userId: string): Promise<void> {
  const { users } = tablesOf(tx);
  await forUpdate(tx, tx.select({ id: users.id }).from(users).where(eq(users.id, userId)), { referenced: true });
}

/** What others see of these users (name, avatar, guest), as summaries by id. */
export async function profilesOf(db: Db, userIds: string[]): Promise<Map<string, UserSummary>> {
  if (userIds.length === 0) return new Map();
  const { users } = tablesOf(db);
  const rows = await db.select({ id: users.id, name: users.name, avatarUrl: users.avatarUrl, guest: users.guest }).from(users).where(inArray(users.id, userIds));
  return new Map(rows.map((row) => [row.id, toUserSummary(row)]));
}
