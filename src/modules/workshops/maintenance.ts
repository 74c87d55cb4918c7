import type { AppDeps } from '../../deps';
import type { UserRow } from '../../http/env';
import { toUserSummary } from '../users/schemas';
import { writeWorkshop } from '../../db/write';
import { authorize } from '../access/rules';
import { loadAccess } from '../access/load';
import { workshopPublicUrl } from '../../domain/workshops';
import { membersOf } from './members-repo';
import { deleteAllOfWorkshop } from './repo';
import type { MessageInput } from './schemas';

/** What a facilitator may clear in one go (tables by name), and the event each clearing logs. */
export const BULK_DELETES = {
  votes: { table: 'votes', action: 'removeVotes' },
  ratings: { table: 'ratings', action: 'removeRatings' },
  items: { table: 'items', action: 'removeItems' },
  comments: { table: 'comments', action: 'removeComments' },
  attachments: { table: 'attachments', action: 'removeAttachments' },
} as const;
export type BulkDeletable = keyof typeof BULK_DELETES;

/** DELETE /v1/workshops/:id/{votes,ratings,items,comments,attachments}: one event with the count. */
export async function deleteAllOf(
  deps: AppDeps,
  user: UserRow,
  workshopId: string,
  kind: BulkDeletable,
): Promise<void> {
  const { action } = BULK_DELETES[kind];
  await writeWorkshop(deps, workshopId, async (tx, changes) => {
    authorize(await loadAccess(tx, workshopId, user), 'facilitate');
    const count = await deleteAllOfWorkshop(tx, BULK_DELETES[kind].table, workshopId);
    changes.record({ workshopId, action, userId: user.id, change: { count } });
  });
}

/** POST /v1/workshops/:id/messages: a `message` notification for every member but the sender (unless include_me). */
export function sendMessage(
  deps: AppDeps,
  user: UserRow,
  workshopId: string,
  input: MessageInput,
): Promise<{ recipients: number }> {
  return writeWorkshop(deps, workshopId, async (tx, changes) => {
    const access = await loadAccess(tx, workshopId, user);
    authorize(access, 'facilitate');
    const recipients = (await membersOf(tx, workshopId)).map((m) => m.userId).filter((id) => id !== user.id);
    if (input.include_me) recipients.push(user.id);
    const { workshop } = access;
    changes.notify(recipients, 'message', {
      workshop: { id: workshop.id, title: workshop.title, public_url: workshopPublicUrl(deps.config, workshop.id) },
      content: input.content,
      from: toUserSummary(user),
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
