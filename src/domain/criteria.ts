import * as v from 'valibot';
import { RatingOutput } from './ratings';

/** The values each scale allows (spec: Criterion). */
export const SCALES: Record<number, readonly number[]> = {
  1: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
  2: [0, 1, 3, 9],
  3: [0, 5, 10],
  4: [0, 1, 2, 3, 4],
};

/** Criterion as the API returns it. */
export const CriterionOutput = v.object({
  id: v.string(),
  title: v.string(),
  scale: v.number(),
  current_scale: v.array(v.number()),
  /** Ratings on this criterion visible to the caller (of one card when nested in a card). */
  ratings: v.array(RatingOutput),
});
export type CriterionOutput = v.InferOutput<typeof CriterionOutput>;

/** What a criterion's output is made of. */
export interface CriterionFields {
  id: string;
  title: string;
  scale: number;
}

/**
 * The API's face of a criterion, with the ratings on it the reader may see: the criteria's own
 * routes, the workshop and a card's detail show it alike.
 */
export function toCriterion(row: CriterionFields, ratings: RatingOutput[]): CriterionOutput {
  return { id: row.id, title: row.title, scale: row.scale, current_scale: [...(SCALES[row.scale] ?? [])], ratings };
}
