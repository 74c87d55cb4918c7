import type { Db } from '../../db/database';
import { ssoBars, type Caller } from '../../domain/permissions';
import { forbidden, notFound, ssoRequired } from '../../http/errors';
import { findMembership, findOrganization } from './repo';
import type { OrganizationMemberRow, OrganizationRow } from './schemas';
import { msg } from '../../i18n/messages';

/** The caller's standing in an organization. */
export interface OrganizationAccess {
  organization: OrganizationRow;
  membership: OrganizationMemberRow;
}

/**
 * Members only: anyone else gets 404, so a stranger cannot learn that the organization exists. A
 * member whose session single sign-on keeps out (docs/integrations.md#requiring-it-for-an-organization)
 * gets 403 `sso_required`, but for `settings`: its admins may always reach the settings, so one
 * who signed in with a password can turn `sso_required` off again.
 */
export async function loadOrganizationAccess(
  db: Db,
  organizationId: string,
  caller: Caller,
  options: { settings?: boolean } = {},
): Promise<OrganizationAccess> {
  const organization = await findOrganization(db, organizationId);
  const membership = organization && (await findMembership(db, organizationId, caller.id));
  if (!organization || !membership) throw notFound('organization');
  const barred = ssoBars(caller, { ownerType: 'organization', ownerId: organizationId });
  if (barred && !(options.settings && membership.role === 'admin')) throw ssoRequired();
  return { organization, membership };
}

export function isOrganizationAdmin(access: OrganizationAccess): boolean {
  return access.membership.role === 'admin';
}

/** Renaming, avatars and members are for admins; facilitator members get 403. */
export function requireOrganizationAdmin(access: OrganizationAccess): OrganizationAccess {
  if (!isOrganizationAdmin(access)) throw forbidden(msg('error.organizations.admins_only'));
  return access;
}
