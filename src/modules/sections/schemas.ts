import * as v from 'valibot';
import type { Schema } from '../../db/database';
import { requiredText } from '../../http/validation';

export type SectionRow = Schema['sections']['$inferSelect'];

export const SectionOutput = v.object({ id: v.string(), title: v.string() });
export type SectionOutput = v.InferOutput<typeof SectionOutput>;

export const CreateSectionInput = v.object({ title: requiredText(200) });
export const UpdateSectionInput = v.object({ title: v.optional(requiredText(200)) });

export function toSection(row: SectionRow): SectionOutput {
  return { id: row.id, title: row.title };
}
