import { eq } from 'drizzle-orm';
import type { AppDeps } from '../../deps';
import { attachments, comments, items, ratings, votes } from '../../db/schema/index';
import type { UserRow } from '../../http/env';
import { write } from '../events/recorder';
import { authorize } from '../access/rules';
import { loadAccess } from '../access/load';
import { workshopPublicUrl } from './output';
import { membersOf } from './repo';
import type { MessageInput } from './schemas';

/** What a facilitator may clear in one go, and the event each clearing logs. */
export const BULK_DELETES = {
  votes: { table: votes, action: 'removeVotes' },
  ratings: { table: ratings, action: 'removeRatings' },
  items: { table: items, action: 'removeItems' },
  comments: { table: comments, action: 'removeComments' },
  attachments: { table: attachments, action: 'removeAttachments' },
} as const;
export type BulkDeletable = keyof typeof BULK_DELETES;

/** DELETE /v1/workshops/:id/{votes,ratings,items,comments,attachments}: one event with the count. */
export function deleteAllOf(deps: AppDeps, user: UserRow, workshopId: string, kind: BulkDeletable): void {
  const { db } = deps.database;
  const { table, action } = BULK_DELETES[kind];
  write(deps, (tx, changes) => {
    authorize(loadAccess(db, workshopId, user.id), 'facilitate');
    const { changes: count } = tx.delete(table).where(eq(table.workshopId, workshopId)).run();
    changes.record({ workshopId, action, userId: user.id, change: { count } });
  });
}

/** POST /v1/workshops/:id/messages: a `message` notification for every member but the sender (unless include_me). */
export function sendMessage(deps: AppDeps, user: UserRow, workshopId: string, input: MessageInput): { recipients: number } {
  const { db } = deps.database;
  return write(deps, (_tx, changes) => {
    const access = loadAccess(db, workshopId, user.id);
    authorize(access, 'facilitate');
    const recipients = membersOf(db, workshopId).map((m) => m.userId).filter((id) => id !== user.id);
    if (input.include_me) recipients.push(user.id);
    const { workshop } = access;
    changes.notify(recipients, 'message', {
      workshop: { id: workshop.id, title: workshop.title, public_url: workshopPublicUrl(deps.config, workshop.id) },
      content: input.content,
      from: { id: user.id, name: user.name, avatar_url: user.avatarUrl },
    });
    changes.record({
      workshopId,
      action: 'addMessage',
      userId: user.id,
      change: { message: { content: input.content, include_me: input.include_me, recipients: recipients.length } },
    });
    return { recipients: recipients.length };
  });
}
