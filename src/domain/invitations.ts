import * as v from 'valibot';

/** The role an invitation gives whoever accepts it (docs/api.md#invitations); `participant` unless said. */
export const InvitationRole = v.picklist(['participant', 'facilitator']);
export type InvitationRole = v.InferOutput<typeof InvitationRole>;

export const InvitationOutput = v.object({
  id: v.string(),
  email: v.string(),
  state: v.picklist(['pending', 'accepted']),
  role: InvitationRole,
});
export type InvitationOutput = v.InferOutput<typeof InvitationOutput>;
