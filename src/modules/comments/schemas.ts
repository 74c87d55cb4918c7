import * as v from 'valibot';
import type { Schema } from '../../db/database';
import { requiredText } from '../../http/validation';

export type CommentRow = Schema['comments']['$inferSelect'];

export const CommentOutput = v.object({ id: v.string(), created_at: v.string(), content: v.string(), user_id: v.string() });
export type CommentOutput = v.InferOutput<typeof CommentOutput>;

export const CreateCommentInput = v.object({ content: requiredText(10_000) });

export function toComment(row: CommentRow): CommentOutput {
  return { id: row.id, created_at: row.createdAt, content: row.content, user_id: row.userId };
}
