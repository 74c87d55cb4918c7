import type { Db } from '../../db/database';
import { forbidden, notFound } from '../../http/errors';
import { findMembership, findOrganization } from './repo';
import type { OrganizationMemberRow, OrganizationRow } from './schemas';

/** The caller's standing in an organization. */
export interface OrganizationAccess {
  organization: OrganizationRow;
  membership: OrganizationMemberRow;
}

/** Members only: anyone else gets 404, so a stranger cannot learn that the organization exists. */
export async function loadOrganizationAccess(
  db: Db,
  organizationId: string,
  userId: string,
): Promise<OrganizationAccess> {
  const organization = await findOrganization(db, organizationId);
  const membership = organization && (await findMembership(db, organizationId, userId));
  if (!organization || !membership) throw notFound('Organization');
  return { organization, membership };
}

export function isOrganizationAdmin(access: OrganizationAccess): boolean {
  return access.membership.role === 'admin';
}

/** Renaming, avatars and members are for admins; facilitator members get 403. */
export function requireOrganizationAdmin(access: OrganizationAccess): OrganizationAccess {
  if (!isOrganizationAdmin(access)) throw forbidden('Only admins of this organization may do this.');
  return access;
}
