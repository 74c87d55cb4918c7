import * as v from 'valibot';
import type { Schema } from '../../db/database';
import { idString, requiredText } from '../../http/validation';
import { AuthorVisibilityOutput } from '../steps/prefs';

export type ItemRow = Schema['items']['$inferSelect'];

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

export const CreateItemInput = v.object({ content: requiredText(10_000), section_id: idString });
export const UpdateItemInput = v.object({ content: v.optional(requiredText(10_000)) });
export const ItemsQuery = v.object({ section_id: v.optional(idString) });

export function toItem(row: ItemRow): ItemOutput {
  return {
    id: row.id,
    content: row.content,
    section_id: row.sectionId,
    user_id: row.userId,
    author_visibility: row.authorVisibility,
  };
}
