import * as v from 'valibot';
import { AuthorVisibilityOutput } from './prefs';

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
