import * as v from 'valibot';
import type { RatingOutput } from '../../domain/ratings';
import type { Schema } from '../../db/database';
import { idString } from '../../http/validation';

export type RatingRow = Schema['ratings']['$inferSelect'];

export const CreateRatingInput = v.object({
  value: v.pipe(v.number(), v.integer()),
  criterium_id: idString,
});
export const UpdateRatingInput = v.object({ value: v.optional(v.pipe(v.number(), v.integer())) });
export const RatingsQuery = v.object({ criterium_id: v.optional(idString) });

export function toRating(row: RatingRow): RatingOutput {
  return { id: row.id, value: row.value, user_id: row.userId, criterium_id: row.criteriumId, card_id: row.cardId };
}
