import { eq } from 'drizzle-orm';
import { tablesOf, type Db } from './database';
import { forUpdate } from './sql';

/**
 * Locks the user's row for the rest of the transaction, so a cap on what one user has (invitation
 * mails in a day, exports pending, uploads in a day) and their avatar are counted, read and written
 * by one request at a time, on any instance. A write to a workshop or an organization locks that
 * first (`lockWorkshop`, `lockOrganization`) and the user after, always in that order. Modules on
 * every floor take it (auth, mail, exports, uploads, organizations, users), so it lives with the store.
 */
export async function lockUser(tx: Db, userId: string): Promise<void> {
  const { users } = tablesOf(tx);
  await forUpdate(tx, tx.select({ id: users.id }).from(users).where(eq(users.id, userId)), { referenced: true });
}
