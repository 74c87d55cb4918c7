import * as v from 'valibot';
import type { Schema } from '../../db/database';
import { idString } from '../../http/validation';

export type RatingRow = Schema['ratings']['$inferSelect'];

export const RatingOutput = v.object({
  id: v.string(),
  value: v.number(),
  user_id: v.string(),
  criterium_id: v.string(),
  card_id: v.string(),
});
export type RatingOutput = v.InferOutput<typeof RatingOutput>;

export const CreateRatingInput = v.object({
  value: v.pipe(v.number(), v.integer()),
  criterium_id: idString,
});
export const UpdateRatingInput = v.object({ value: v.optional(v.pipe(v.number(), v.integer())) });
export const RatingsQuery = v.object({ criterium_id: v.optional(idString) });

export function toRating(row: RatingRow): RatingOutput {
  return { id: row.id, value: row.value, user_id: row.userId, criterium_id: row.criteriumId, card_id: row.cardId };
}
