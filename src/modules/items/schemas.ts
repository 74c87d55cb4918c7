import * as v from 'valibot';
import type { ItemOutput } from '../../domain/items';
import type { Schema } from '../../db/database';
import { idString, requiredText } from '../../http/validation';

export type ItemRow = Schema['items']['$inferSelect'];

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
