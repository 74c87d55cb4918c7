import * as v from 'valibot';
import type { Schema } from '../../db/database';
import { PageQuery } from '../../http/pagination';
import { idString } from '../../http/validation';

export type NotificationRow = Schema['notifications']['$inferSelect'];

export const NotificationOutput = v.object({
  id: v.string(),
  type: v.string(),
  created_at: v.string(),
  updated_at: v.string(),
  /** Shape depends on `type` (spec: Notification). */
  data: v.record(v.string(), v.unknown()),
  read: v.boolean(),
});
export type NotificationOutput = v.InferOutput<typeof NotificationOutput>;

export const NotificationsQuery = v.object({ ...PageQuery });

/** Without `last_notification_id` (or with null) every notification is marked read. */
export const MarkAllReadInput = v.object({ last_notification_id: v.optional(v.nullable(idString)) });
export const MarkReadInput = v.object({ read: v.boolean() });

export function toNotification(row: NotificationRow): NotificationOutput {
  return {
    id: row.id,
    type: row.type,
    created_at: row.createdAt,
    updated_at: row.updatedAt,
    data: row.data,
    read: row.read,
  };
}
