import * as v from 'valibot';

export const VoteOutput = v.object({ id: v.string(), value: v.number(), user_id: v.string() });
export type VoteOutput = v.InferOutput<typeof VoteOutput>;
