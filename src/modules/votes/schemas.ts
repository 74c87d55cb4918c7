import * as v from 'valibot';
import { VoteOutput } from '../../domain/votes';
import type { votes } from '../../db/schema/index';
import { said } from '../../i18n/valibot';

export type VoteRow = typeof votes.$inferSelect;

export const VoteValue = v.pipe(
  v.number(),
  v.integer(),
  v.check((n) => n !== 0, said('error.validation.vote_zero')),
  v.minValue(-1000),
  v.maxValue(1000),
);

export const CreateVoteInput = v.object({ value: VoteValue });
export const UpdateVoteInput = v.object({ value: v.optional(VoteValue) });

export function toVote(row: VoteRow): VoteOutput {
  return { id: row.id, value: row.value, user_id: row.userId };
}
