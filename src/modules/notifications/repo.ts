import { and, desc, eq, sql } from 'drizzle-orm';
import { nowIso } from '../../db/columns';
import { creationOrder } from '../../db/creation-order';
import { tablesOf, type Db } from '../../db/database';
import type { NotificationRow } from './schemas';

/** Where a notification sits in the list: several can share a millisecond, insertion order breaks the tie. */
export interface NotificationMark {
  createdAt: string;
  order: number;
}

export async function countNotificationsOf(db: Db, userId: string): Promise<number> {
  const { notifications } = tablesOf(db);
  const [counted] = await db
    .select({ n: sql<number>`count(*)`.mapWith(Number) })
    .from(notifications)
    .where(eq(notifications.userId, userId));
  return counted!.n;
}

/** A page of the user's notifications, newest first. */
export async function notificationsOf(
  db: Db,
  userId: string,
  limit: number,
  offset: number,
): Promise<NotificationRow[]> {
  const { notifications } = tablesOf(db);
  return db
    .select()
    .from(notifications)
    .where(eq(notifications.userId, userId))
    .orderBy(desc(notifications.createdAt), desc(creationOrder(notifications)))
    .limit(limit)
    .offset(offset);
}

export async function notificationMark(
  tx: Db,
  userId: string,
  notificationId: string,
): Promise<NotificationMark | undefined> {
  const { notifications } = tablesOf(tx);
  const [mark] = await tx
    .select({ createdAt: notifications.createdAt, order: sql<number>`${creationOrder(notifications)}`.mapWith(Number) })
    .from(notifications)
    .where(and(eq(notifications.id, notificationId), eq(notifications.userId, userId)));
  return mark;
}

/** Marks the user's unread notifications read: all of them, or those up to and including `upTo`. */
export async function markUnreadRead(tx: Db, userId: string, upTo: NotificationMark | null): Promise<void> {
  const { notifications } = tablesOf(tx);
  const order = creationOrder(notifications);
  const upToMark = upTo
    ? sql`(${notifications.createdAt} < ${upTo.createdAt} or (${notifications.createdAt} = ${upTo.createdAt} and ${order} <= ${upTo.order}))`
    : sql`1 = 1`;
  await tx
    .update(notifications)
    .set({ read: true, updatedAt: nowIso() })
    .where(and(eq(notifications.userId, userId), eq(notifications.read, false), upToMark));
}

export async function readFlagOf(
  tx: Db,
  userId: string,
  notificationId: string,
): Promise<{ read: boolean } | undefined> {
  const { notifications } = tablesOf(tx);
  const [row] = await tx
    .select({ read: notifications.read })
    .from(notifications)
    .where(and(eq(notifications.id, notificationId), eq(notifications.userId, userId)));
  return row;
}

export async function setRead(tx: Db, notificationId: string, read: boolean): Promise<void> {
  const { notifications } = tablesOf(tx);
  await tx.update(notifications).set({ read, updatedAt: nowIso() }).where(eq(notifications.id, notificationId));
}
