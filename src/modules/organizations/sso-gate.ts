import type { MiddlewareHandler } from 'hono';
import type { Database } from '../../db/database';
import { AppError } from '../../http/errors';
import type { AppEnv } from '../../http/env';
import { organizationOwning, ssoOrganizationsOf } from './repo';
import type { OrganizationRole } from './schemas';

/** Users whose organizations requiring single sign-on are kept in memory, at most this many. */
const CACHE_ENTRIES = 10_000;

interface Cached {
  epoch: number;
  /** Organization id → the user's role there; empty for nearly everyone. */
  organizations: Map<string, OrganizationRole>;
}

function ssoRequired(): AppError {
  return new AppError(
    'sso_required',
    'This organization requires single sign-on: sign in with its provider rather than a password.',
  );
}

/**
 * `sso_required` (docs/integrations.md#single-sign-on): a session opened with a password is refused
 * on the routes of an organization that requires single sign-on and of which the user is a member
 * (`/v1/organizations/:id/…`), and on the workshops it owns (`/v1/workshops/:id/…`). API tokens and
 * sessions opened through the provider pass. `PUT /v1/organizations/:id` stays open to its admins,
 * so one who signed in with a password can always turn it off again.
 *
 * Which organizations a user must sign in to with the provider is kept per user against the
 * identity epoch, which a change of `sso_required` or of a membership moves on any instance; for
 * the many users with none, a workshop's owner is never looked up.
 */
export function ssoGate(deps: { database: Database }) {
  const { db } = deps.database;
  const cache = new Map<string, Cached>();

  async function organizationsOf(userId: string, epoch: number): Promise<Map<string, OrganizationRole>> {
    const hit = cache.get(userId);
    cache.delete(userId);
    const entry =
      hit && hit.epoch === epoch
        ? hit
        : {
            epoch,
            organizations: new Map(
              (await ssoOrganizationsOf(db, userId)).map((row) => [row.organizationId, row.role] as const),
            ),
          };
    cache.set(userId, entry);
    if (cache.size > CACHE_ENTRIES) cache.delete(cache.keys().next().value!);
    return entry.organizations;
  }

  /** The organizations this request's session may not reach; null when nothing is refused to it. */
  async function refusedTo(c: Parameters<MiddlewareHandler<AppEnv>>[0]) {
    if (c.get('apiToken') || c.get('signInMethod') !== 'password') return null;
    const organizations = await organizationsOf(c.get('user').id, c.get('identityEpoch'));
    return organizations.size > 0 ? organizations : null;
  }

  const organizationRoutes: MiddlewareHandler<AppEnv> = async function ssoOnOrganization(c, next) {
    const organizations = await refusedTo(c);
    const id = c.req.param('sso_organization_id');
    const role = id === undefined ? undefined : organizations?.get(id);
    if (role !== undefined) {
      const settings = c.req.method === 'PUT' && c.req.path === `/v1/organizations/${id}`;
      if (!(settings && role === 'admin')) throw ssoRequired();
    }
    await next();
  };

  const workshopRoutes: MiddlewareHandler<AppEnv> = async function ssoOnWorkshop(c, next) {
    const organizations = await refusedTo(c);
    const id = c.req.param('sso_workshop_id');
    if (organizations && id !== undefined) {
      const owner = await organizationOwning(db, id);
      if (owner !== undefined && organizations.has(owner)) throw ssoRequired();
    }
    await next();
  };

  return { organizationRoutes, workshopRoutes };
}
