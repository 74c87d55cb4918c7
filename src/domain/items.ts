import * as v from 'valibot';
import { AuthorVisibilityOutput } from './prefs';

/** Item as the API returns it. */
export const ItemOutput = v.object({
  id: v.string(),
  content: v.string(),
  section_id: v.string(),
  /**
   * Null when written anonymously and the reader may not see its author
   * (docs/api.md#private-writing-and-anonymous-authors).
   */
  user_id: v.nullable(v.string()),
  author_visibility: AuthorVisibilityOutput,
});
export type ItemOutput = v.InferOutput<typeof ItemOutput>;
