import { notFound } from '../../http/errors';
import { writeWorkshop, type WriteDeps } from '../../db/write';
import { loadTarget, onCard } from '../access/feedback-target';
import type { CardRef } from '../../domain/card-ref';
import { authorize } from '../access/rules';
import { authorFor, authorVisibilityNow } from '../access/visibility';
import { deleteComment, findComment, insertComment, listComments as listCommentRows } from './repo';
import { toComment, type CommentRow } from './schemas';
import type { CommentOutput } from '../../domain/comments';

function found(row: CommentRow | undefined): CommentRow {
  if (!row) throw notFound('comment');
  return row;
}

export async function listComments(deps: WriteDeps, ref: CardRef): Promise<CommentOutput[]> {
  const { access, card } = await loadTarget(deps.database.db, ref);
  return (await listCommentRows(deps.database.db, card.id)).map((row) => authorFor(access, toComment(row)));
}

export async function getComment(deps: WriteDeps, ref: CardRef, commentId: string): Promise<CommentOutput> {
  const { access, card } = await loadTarget(deps.database.db, ref);
  return authorFor(access, toComment(found(await findComment(deps.database.db, card.id, commentId))));
}

export function addComment(deps: WriteDeps, ref: CardRef, input: { content: string }): Promise<CommentOutput> {
  return writeWorkshop(deps, ref.workshopId, async (tx, changes) => {
    const { access, card } = await loadTarget(tx, ref);
    authorize(access, 'comment');
    const comment = toComment(
      await insertComment(tx, {
        workshopId: ref.workshopId,
        cardId: card.id,
        userId: ref.caller.id,
        authorVisibility: authorVisibilityNow(access),
        content: input.content,
      }),
    );
    changes.record({
      workshopId: ref.workshopId,
      action: 'addComment',
      userId: ref.caller.id,
      cardUserId: card.userId,
      change: { comment: onCard(comment, card.id) },
    });
    return comment;
  });
}

export async function removeComment(deps: WriteDeps, ref: CardRef, commentId: string): Promise<void> {
  await writeWorkshop(deps, ref.workshopId, async (tx, changes) => {
    const { access, card } = await loadTarget(tx, ref);
    const row = found(await findComment(tx, card.id, commentId));
    authorize(access, 'comment');
    authorize(access, { manage_feedback: { authorId: row.userId } });
    await deleteComment(tx, row.id);
    changes.record({
      workshopId: ref.workshopId,
      action: 'removeComment',
      userId: ref.caller.id,
      cardUserId: card.userId,
      change: { comment: onCard(toComment(row), card.id) },
    });
  });
}
