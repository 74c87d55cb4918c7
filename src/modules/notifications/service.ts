import type { AppDeps } from '../../deps';
import { notFound } from '../../http/errors';
import type { Page } from '../../http/pagination';
import { write } from '../../db/write';
import { countNotificationsOf, markUnreadRead, notificationMark, notificationsOf, readFlagOf, setRead } from './repo';
import { userIdsNamedIn, withoutDeletedUsers } from '../../domain/deleted-users';
import { deletedAmong } from '../users/repo';
import { toNotification, type NotificationOutput } from './schemas';

export async function listNotifications(
  deps: AppDeps,
  userId: string,
  page: Page & { offset: number },
): Promise<{ items: NotificationOutput[]; total: number }> {
  const { db } = deps.database;
  const total = await countNotificationsOf(db, userId);
  const rows = await notificationsOf(db, userId, page.perPage, page.offset);
  // Whoever a notification names (its sender) reads as a deleted user once their account is deleted.
  const deleted = await deletedAmong(
    db,
    rows.flatMap((row) => [...userIdsNamedIn(row.data)]),
  );
  return { items: rows.map((row) => toNotification({ ...row, data: withoutDeletedUsers(row.data, deleted) })), total };
}

/** Marks every unread notification of the user read, or only those created up to and including `lastId`. */
export async function markAllRead(deps: AppDeps, userId: string, lastId: string | null | undefined): Promise<void> {
  await write(deps, async (tx) => {
    let upTo = null;
    if (lastId) {
      upTo = await notificationMark(tx, userId, lastId);
      if (!upTo) throw notFound('notification');
    }
    await markUnreadRead(tx, userId, upTo);
  });
}

export async function markRead(deps: AppDeps, userId: string, notificationId: string, read: boolean): Promise<void> {
  await write(deps, async (tx) => {
    const row = await readFlagOf(tx, userId, notificationId);
    if (!row) throw notFound('notification');
    if (row.read === read) return;
    await setRead(tx, notificationId, read);
  });
}
