import * as v from 'valibot';

export const InvitationOutput = v.object({
  id: v.string(),
  email: v.string(),
  state: v.picklist(['pending', 'accepted']),
});
export type InvitationOutput = v.InferOutput<typeof InvitationOutput>;
