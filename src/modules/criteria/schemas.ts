import * as v from 'valibot';
import type { CriterionOutput } from '../../domain/criteria';
import type { Schema } from '../../db/database';
import { requiredText } from '../../http/validation';
import type { RatingOutput as Rating } from '../../domain/ratings';

export type CriterionRow = Schema['criteria']['$inferSelect'];

/** The values each scale allows (spec: Criterion). */
export const SCALES: Record<number, readonly number[]> = {
  1: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
  2: [0, 1, 3, 9],
  3: [0, 5, 10],
  4: [0, 1, 2, 3, 4],
};

export const CreateCriterionInput = v.object({
  title: requiredText(200),
  scale: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(4)),
});

export const UpdateCriterionInput = v.object({ title: v.optional(requiredText(200)) });

export function toCriterion(row: Pick<CriterionRow, 'id' | 'title' | 'scale'>, ratings: Rating[]): CriterionOutput {
  return { id: row.id, title: row.title, scale: row.scale, current_scale: [...(SCALES[row.scale] ?? [])], ratings };
}
