import type { Config } from '../../config';
import type { Database } from '../../db/database';
import type { FileStore } from '../../files/store';
import { AppError, forbidden } from '../../http/errors';
import type { UserRow } from '../../http/env';
import type { Caller } from '../../domain/permissions';
import type { DomainEventBus } from '../../domain/bus';
import { readAvatar, replaceAvatar } from '../uploads/avatars';
import type { FormFields } from '../uploads/multipart';
import { loadOrganizationAccess, requireOrganizationAdmin } from './access';
import { insertOrganization, lockOrganization, organizationsOf, updateOrganization } from './repo';
import { toOrganization } from './schemas';
import type { OrganizationOutput } from '../../domain/organizations';
import { msg } from '../../i18n/messages';

export interface OrganizationDeps {
  config: Config;
  database: Database;
  files: FileStore;
  bus: DomainEventBus;
}

/** The creator becomes the organization's first admin; organizations start on the `team` plan. */
export async function createOrganization(
  deps: OrganizationDeps,
  user: UserRow,
  input: { name: string },
): Promise<OrganizationOutput> {
  // Guests are turned away before this (`guestScope`); an organization's members have addresses.
  const { email } = user;
  if (email === null) throw forbidden(msg('error.organizations.guest'));
  const organization = await deps.database.transaction((tx) =>
    insertOrganization(tx, input.name, { userId: user.id, email }),
  );
  return toOrganization(organization, deps.config);
}

export async function listMyOrganizations(deps: OrganizationDeps, userId: string): Promise<OrganizationOutput[]> {
  return (await organizationsOf(deps.database.db, userId)).map((row) => toOrganization(row, deps.config));
}

export async function getOrganization(
  deps: OrganizationDeps,
  organizationId: string,
  caller: Caller,
): Promise<OrganizationOutput> {
  return toOrganization(
    (await loadOrganizationAccess(deps.database.db, organizationId, caller)).organization,
    deps.config,
  );
}

/**
 * PUT /v1/organizations/:id (admins): its name, and whether members must sign in through the
 * OpenID provider. That needs a provider to sign in with: without one, nobody could reach the
 * organization's workshops any more.
 */
export async function updateOrganizationSettings(
  deps: OrganizationDeps,
  organizationId: string,
  caller: Caller,
  input: { name?: string; sso_required?: boolean },
): Promise<void> {
  if (input.sso_required && !deps.config.oidc) {
    throw new AppError('conflict', msg('error.organizations.sso_unconfigured'));
  }
  await deps.database.transaction(async (tx) => {
    await lockOrganization(tx, organizationId);
    requireOrganizationAdmin(await loadOrganizationAccess(tx, organizationId, caller, { settings: true }));
    const fields = { name: input.name, ssoRequired: input.sso_required };
    if (fields.name !== undefined || fields.ssoRequired !== undefined)
      await updateOrganization(tx, organizationId, fields);
  });
}

/** Takes the form rather than the image so that only admins get to make the server decode one. */
export async function setOrganizationAvatar(
  deps: OrganizationDeps,
  organizationId: string,
  caller: Caller,
  form: FormFields,
): Promise<void> {
  requireOrganizationAdmin(await loadOrganizationAccess(deps.database.db, organizationId, caller));
  const image = await readAvatar(form);
  // Checked again inside the write: membership may have changed while the image was decoded.
  await replaceAvatar(deps, {
    userId: caller.id,
    image,
    current: async (tx) => {
      // Locked before it is read: another replacement waits, then drops the avatar this one stores.
      await lockOrganization(tx, organizationId);
      return requireOrganizationAdmin(await loadOrganizationAccess(tx, organizationId, caller)).organization.avatarUrl;
    },
    store: (tx, url) => updateOrganization(tx, organizationId, { avatarUrl: url }),
  });
}
