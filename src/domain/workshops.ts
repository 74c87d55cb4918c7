import * as v from 'valibot';

export const UserRoleOutput = v.object({
  id: v.string(),
  user_id: v.string(),
  role: v.picklist(['facilitator', 'participant']),
  /** The member's name, and whether they are a guest (docs/api.md#guests). */
  name: v.string(),
  guest: v.boolean(),
});
export type UserRoleOutput = v.InferOutput<typeof UserRoleOutput>;
