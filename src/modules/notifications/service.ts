import { and, desc, eq, sql } from 'drizzle-orm';
import { nowIso } from '../../db/columns';
import { tablesOf, type Schema } from '../../db/database';
import type { AppDeps } from '../../deps';
import { notFound } from '../../http/errors';
import type { Page } from '../../http/pagination';
import { write } from '../../db/write';
import { toNotification, type NotificationOutput } from './schemas';

/** Several notifications can share a millisecond; insertion order (rowid) breaks the tie. */
const rowidOf = (notifications: Schema['notifications']) => sql`${notifications}.rowid`;

export async function listNotifications(
  deps: AppDeps,
  userId: string,
  page: Page & { offset: number },
): Promise<{ items: NotificationOutput[]; total: number }> {
  const { db } = deps.database;
  const { notifications } = tablesOf(db);
  const mine = eq(notifications.userId, userId);
  const [counted] = await db
    .select({ n: sql<number>`count(*)`.mapWith(Number) })
    .from(notifications)
    .where(mine);
  const rows = await db
    .select()
    .from(notifications)
    .where(mine)
    .orderBy(desc(notifications.createdAt), desc(rowidOf(notifications)))
    .limit(page.perPage)
    .offset(page.offset);
  return { items: rows.map(toNotification), total: counted!.n };
}

/** Marks every unread notification of the user read, or only those created up to and including `lastId`. */
export async function markAllRead(deps: AppDeps, userId: string, lastId: string | null | undefined): Promise<void> {
  await write(deps, async (tx) => {
    const { notifications } = tablesOf(tx);
    const rowid = rowidOf(notifications);
    let upTo = sql`1 = 1`;
    if (lastId) {
      const [last] = await tx
        .select({ createdAt: notifications.createdAt, rowid: sql<number>`${rowid}`.mapWith(Number) })
        .from(notifications)
        .where(and(eq(notifications.id, lastId), eq(notifications.userId, userId)));
      if (!last) throw notFound('Notification');
      upTo = sql`(${notifications.createdAt} < ${last.createdAt} or (${notifications.createdAt} = ${last.createdAt} and ${rowid} <= ${last.rowid}))`;
    }
    await tx
      .update(notifications)
      .set({ read: true, updatedAt: nowIso() })
      .where(and(eq(notifications.userId, userId), eq(notifications.read, false), upTo));
  });
}

export async function markRead(deps: AppDeps, userId: string, notificationId: string, read: boolean): Promise<void> {
  await write(deps, async (tx) => {
    const { notifications } = tablesOf(tx);
    const [row] = await tx
      .select({ read: notifications.read })
      .from(notifications)
      .where(and(eq(notifications.id, notificationId), eq(notifications.userId, userId)));
    if (!row) throw notFound('Notification');
    if (row.read === read) return;
    await tx.update(notifications).set({ read, updatedAt: nowIso() }).where(eq(notifications.id, notificationId));
  });
}
