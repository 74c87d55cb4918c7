import * as v from 'valibot';
import type { Schema } from '../../db/database';
import { requiredText } from '../../http/validation';

export type CriterionRow = Schema['criteria']['$inferSelect'];

export const CreateCriterionInput = v.object({
  title: requiredText(200),
  scale: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(4)),
});

export const UpdateCriterionInput = v.object({ title: v.optional(requiredText(200)) });
