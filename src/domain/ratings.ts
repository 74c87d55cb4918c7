import * as v from 'valibot';

/** Rating as the API returns it. */
export const RatingOutput = v.object({
  id: v.string(),
  value: v.number(),
  /** Null for a deleted account's rating, which still counts (docs/api.md#an-accounts-life). */
  user_id: v.nullable(v.string()),
  criterium_id: v.string(),
  card_id: v.string(),
});
export type RatingOutput = v.InferOutput<typeof RatingOutput>;
