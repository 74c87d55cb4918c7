import * as v from 'valibot';
import { AuthorVisibilityOutput } from './prefs';

export const AttachmentOutput = v.object({
  id: v.string(),
  name: v.string(),
  mimetype: v.string(),
  size: v.number(),
  /** Signed download link; works without a token until it expires. */
  url: v.string(),
  /**
   * Null when attached anonymously and the reader may not see who did
   * (docs/api.md#private-writing-and-anonymous-authors).
   */
  user_id: v.nullable(v.string()),
  author_visibility: AuthorVisibilityOutput,
  created_at: v.string(),
});
export type AttachmentOutput = v.InferOutput<typeof AttachmentOutput>;
