import * as v from 'valibot';

/** Rating as the API returns it. */
export const RatingOutput = v.object({
  id: v.string(),
  value: v.number(),
  user_id: v.string(),
  criterium_id: v.string(),
  card_id: v.string(),
});
export type RatingOutput = v.InferOutput<typeof RatingOutput>;
