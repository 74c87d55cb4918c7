import { notFound } from '../../http/errors';
import { write, type WriteDeps } from '../events/recorder';
import { loadTarget, onCard, type CardRef } from '../cards/feedback-target';
import { authorize } from '../access/rules';
import { deleteComment, findComment, insertComment, listComments as listCommentRows } from './repo';
import { toComment, type CommentOutput, type CommentRow } from './schemas';

function found(row: CommentRow | undefined): CommentRow {
  if (!row) throw notFound('Comment');
  return row;
}

export function listComments(deps: WriteDeps, ref: CardRef): CommentOutput[] {
  const { card } = loadTarget(deps.database.db, ref);
  return listCommentRows(deps.database.db, card.id).map(toComment);
}

export function getComment(deps: WriteDeps, ref: CardRef, commentId: string): CommentOutput {
  const { card } = loadTarget(deps.database.db, ref);
  return toComment(found(findComment(deps.database.db, card.id, commentId)));
}

export function addComment(deps: WriteDeps, ref: CardRef, input: { content: string }): CommentOutput {
  const { db } = deps.database;
  return write(deps, (_tx, changes) => {
    const { access, card } = loadTarget(db, ref);
    authorize(access, 'comment');
    const comment = toComment(insertComment(db, { workshopId: ref.workshopId, cardId: card.id, userId: ref.userId, content: input.content }));
    changes.record({ workshopId: ref.workshopId, action: 'addComment', userId: ref.userId, change: { comment: onCard(comment, card.id) } });
    return comment;
  });
}

export function removeComment(deps: WriteDeps, ref: CardRef, commentId: string): void {
  const { db } = deps.database;
  write(deps, (_tx, changes) => {
    const { access, card } = loadTarget(db, ref);
    const row = found(findComment(db, card.id, commentId));
    authorize(access, 'comment');
    authorize(access, { manage_feedback: { authorId: row.userId } });
    deleteComment(db, row.id);
    changes.record({ workshopId: ref.workshopId, action: 'removeComment', userId: ref.userId, change: { comment: onCard(toComment(row), card.id) } });
  });
}
