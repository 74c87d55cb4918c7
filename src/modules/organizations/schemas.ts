import * as v from 'valibot';
import type { Config } from '../../config';
import type { Schema } from '../../db/database';
import { requiredText } from '../../http/validation';
import { EmailInput } from '../../domain/users';
import { planFor } from '../users/schemas';
import type { OrganizationOutput } from '../../domain/organizations';
import { said } from '../../i18n/valibot';

export type OrganizationRow = Schema['organizations']['$inferSelect'];
export type OrganizationMemberRow = Schema['organizationMembers']['$inferSelect'];
export type OrganizationRole = OrganizationMemberRow['role'];

/** `id` is the membership's id (what DELETE …/members/:member_id takes); `pending` until the address has an account. */
export const OrganizationMemberOutput = v.object({
  id: v.string(),
  email: v.string(),
  name: v.string(),
  avatar_url: v.nullable(v.string()),
  role: v.picklist(['facilitator', 'admin']),
  pending: v.boolean(),
});
export type OrganizationMemberOutput = v.InferOutput<typeof OrganizationMemberOutput>;

export const OrganizationInput = v.object({ name: requiredText(200) });

/** PUT /v1/organizations/:id changes what it is sent and leaves the rest. */
export const OrganizationUpdateInput = v.object({
  name: v.optional(requiredText(200)),
  sso_required: v.optional(v.boolean()),
});

export const AddMemberInput = v.object({
  email: EmailInput,
  role: v.picklist(['facilitator', 'admin'], said('error.validation.organization_role')),
});

/** PUT /v1/organizations/:id/members/:member_id: the member's new role. */
export const ChangeMemberRoleInput = v.object({
  role: v.picklist(['facilitator', 'admin'], said('error.validation.organization_role')),
});

export function toOrganization(row: OrganizationRow, config: Pick<Config, 'plans'>): OrganizationOutput {
  return {
    id: row.id,
    name: row.name,
    avatar_url: row.avatarUrl,
    plan: planFor(config, row.planName),
    sso_required: row.ssoRequired,
  };
}

/** A member joined with their account, if they have one yet. */
export interface MemberWithUser {
  member: OrganizationMemberRow;
  user: { name: string; email: string; avatarUrl: string | null } | null;
}

export function toMember({ member, user }: MemberWithUser): OrganizationMemberOutput {
  return {
    id: member.id,
    email: user?.email ?? member.email,
    // Until the invited address has an account, its local part is the best name there is.
    name: user?.name ?? member.email.split('@')[0]!,
    avatar_url: user?.avatarUrl ?? null,
    role: member.role,
    pending: user === null,
  };
}
