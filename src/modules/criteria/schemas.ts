import * as v from 'valibot';
import { SCALES, type CriterionOutput } from '../../domain/criteria';
import type { Schema } from '../../db/database';
import { requiredText } from '../../http/validation';
import type { RatingOutput as Rating } from '../../domain/ratings';

export type CriterionRow = Schema['criteria']['$inferSelect'];

export const CreateCriterionInput = v.object({
  title: requiredText(200),
  scale: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(4)),
});

export const UpdateCriterionInput = v.object({ title: v.optional(requiredText(200)) });

export function toCriterion(row: Pick<CriterionRow, 'id' | 'title' | 'scale'>, ratings: Rating[]): CriterionOutput {
  return { id: row.id, title: row.title, scale: row.scale, current_scale: [...(SCALES[row.scale] ?? [])], ratings };
}
