import * as v from 'valibot';
import type { Schema } from '../../db/database';
import { requiredText } from '../../http/validation';

export type SectionRow = Schema['sections']['$inferSelect'];

export const CreateSectionInput = v.object({ title: requiredText(200) });
export const UpdateSectionInput = v.object({ title: v.optional(requiredText(200)) });
