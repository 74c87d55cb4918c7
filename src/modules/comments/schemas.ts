import * as v from 'valibot';
import { CommentOutput } from '../../domain/comments';
import type { Schema } from '../../db/database';
import { requiredText } from '../../http/validation';

export type CommentRow = Schema['comments']['$inferSelect'];

export const CreateCommentInput = v.object({ content: requiredText(10_000) });

export function toComment(row: CommentRow): CommentOutput {
  return {
    id: row.id,
    created_at: row.createdAt,
    content: row.content,
    user_id: row.userId,
    author_visibility: row.authorVisibility,
  };
}
