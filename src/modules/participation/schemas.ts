import * as v from 'valibot';

export const ParticipantProgress = v.object({
  id: v.string(),
  name: v.string(),
  guest: v.boolean(),
  /** Positive points spent (what the positive vote limit counts). */
  votes_used: v.number(),
  ratings: v.number(),
});
export type ParticipantProgress = v.InferOutput<typeof ParticipantProgress>;

/**
 * Participation (docs/api.md#participation): counts for everyone; `users` for facilitators only.
 * Never any vote's value.
 */
export const ParticipationOutput = v.object({
  step_id: v.nullable(v.string()),
  participants: v.number(),
  voted_any: v.number(),
  voted_all: v.number(),
  rated_any: v.number(),
  users: v.optional(v.array(ParticipantProgress)),
});
export type ParticipationOutput = v.InferOutput<typeof ParticipationOutput>;
