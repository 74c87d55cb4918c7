import * as v from 'valibot';
import { RatingOutput } from './ratings';

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
