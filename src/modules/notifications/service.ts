import { and, desc, eq, sql } from 'drizzle-orm';
import { nowIso } from '../../db/columns';
import { notifications } from '../../db/schema/index';
import type { AppDeps } from '../../deps';
import { notFound } from '../../http/errors';
import type { Page } from '../../http/pagination';
import { write } from '../events/recorder';
import { toNotification, type NotificationOutput } from './schemas';

/** Several notifications can share a millisecond; insertion order (rowid) breaks the tie. */
const rowid = sql`${notifications}.rowid`;

export function listNotifications(
  deps: AppDeps,
  userId: string,
  page: Page & { offset: number },
): { items: NotificationOutput[]; total: number } {
  const { db } = deps.database;
  const mine = eq(notifications.userId, userId);
  const total = db.select({ n: sql<number>`count(*)` }).from(notifications).where(mine).get()!.n;
  const rows = db
    .select()
    .from(notifications)
    .where(mine)
    .orderBy(desc(notifications.createdAt), desc(rowid))
    .limit(page.perPage)
    .offset(page.offset)
    .all();
  return { items: rows.map(toNotification), total };
}

/** Marks every unread notification of the user read, or only those created up to and including `lastId`. */
export function markAllRead(deps: AppDeps, userId: string, lastId: string | null | undefined): void {
  write(deps, (tx) => {
    let upTo = sql`1 = 1`;
    if (lastId) {
      const last = tx
        .select({ createdAt: notifications.createdAt, rowid: sql<number>`${rowid}` })
        .from(notifications)
        .where(and(eq(notifications.id, lastId), eq(notifications.userId, userId)))
        .get();
      if (!last) throw notFound('Notification');
      upTo = sql`(${notifications.createdAt} < ${last.createdAt} or (${notifications.createdAt} = ${last.createdAt} and ${rowid} <= ${last.rowid}))`;
    }
    tx.update(notifications)
      .set({ read: true, updatedAt: nowIso() })
      .where(and(eq(notifications.userId, userId), eq(notifications.read, false), upTo))
      .run();
  });
}

export function markRead(deps: AppDeps, userId: string, notificationId: string, read: boolean): void {
  write(deps, (tx) => {
    const row = tx
      .select({ read: notifications.read })
      .from(notifications)
      .where(and(eq(notifications.id, notificationId), eq(notifications.userId, userId)))
      .get();
    if (!row) throw notFound('Notification');
    if (row.read === read) return;
    tx.update(notifications).set({ read, updatedAt: nowIso() }).where(eq(notifications.id, notificationId)).run();
  });
}
