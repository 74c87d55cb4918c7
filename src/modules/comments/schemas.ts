import * as v from 'valibot';
import type { Schema } from '../../db/database';
import { requiredText } from '../../http/validation';
import { AuthorVisibilityOutput } from '../../domain/prefs';

export type CommentRow = Schema['comments']['$inferSelect'];

export const CommentOutput = v.object({
  id: v.string(),
  created_at: v.string(),
  content: v.string(),
  /**
   * Null when written anonymously and the reader may not see its author
   * (docs/api.md#private-writing-and-anonymous-authors).
   */
  user_id: v.nullable(v.string()),
  author_visibility: AuthorVisibilityOutput,
});
export type CommentOutput = v.InferOutput<typeof CommentOutput>;

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
