import * as v from 'valibot';

/** `user_id` is null for a deleted account's vote, which still counts (docs/api.md#an-accounts-life). */
export const VoteOutput = v.object({ id: v.string(), value: v.number(), user_id: v.nullable(v.string()) });
export type VoteOutput = v.InferOutput<typeof VoteOutput>;
