import type { MiddlewareHandler } from 'hono';
import type { Database } from '../../db/database';
import type { AppEnv } from '../../http/env';
import { requiresSsoOf, ssoOrganizationsOf } from './repo';

/** Users whose organizations requiring single sign-on are kept in memory, at most this many. */
const CACHE_ENTRIES = 10_000;

/** How the session asking was opened: a session token's own way, a personal token's maker's; null for an organization's token. */
function signedInWith(c: Parameters<MiddlewareHandler<AppEnv>>[0]): 'password' | 'oidc' | null {
  const apiToken = c.get('apiToken');
  return apiToken ? apiToken.signInMethod : (c.get('signInMethod') ?? null);
}

/**
 * `sso_required` (docs/integrations.md#requiring-it-for-an-organization), who it keeps out: after
 * authentication, a session opened with a password, or a personal API token made from one, of a
 * member of organizations requiring single sign-on carries those organizations on its user
 * (`Caller.ssoBarred`). Where it is kept out is decided where access is: `loadAccess` and
 * `loadOrganizationAccess` refuse it, whatever route asked.
 *
 * Which organizations a user must sign in to with the provider is kept per user against the
 * identity epoch, which a change of `sso_required` or of a membership moves on any instance; the
 * many users with none get their user unchanged.
 */
export function ssoSessions(deps: { database: Database }): MiddlewareHandler<AppEnv> {
  const { db } = deps.database;
  const cache = new Map<string, { epoch: number; organizations: ReadonlySet<string> }>();

  async function organizationsOf(userId: string, epoch: number): Promise<ReadonlySet<string>> {
    const hit = cache.get(userId);
    cache.delete(userId);
    const entry =
      hit && hit.epoch === epoch ? hit : { epoch, organizations: new Set(await ssoOrganizationsOf(db, userId)) };
    cache.set(userId, entry);
    if (cache.size > CACHE_ENTRIES) cache.delete(cache.keys().next().value!);
    return entry.organizations;
  }

  return async function ssoBarredOrganizations(c, next) {
    if (signedInWith(c) === 'password') {
      const user = c.get('user');
      const organizations = await organizationsOf(user.id, c.get('identityEpoch'));
      if (organizations.size > 0) c.set('user', { ...user, ssoBarred: organizations });
    }
    await next();
  };
}

/**
 * `sso_required` for a live connection joining a workshop (Socket.IO `join`, the Yjs endpoint):
 * whether a session opened with `method` may not, the workshop's organization requiring single
 * sign-on of this member. Joins are rare beside requests: asked of the database each time.
 */
export async function liveJoinRefused(
  db: Database['db'],
  session: { userId: string; method: 'password' | 'oidc' },
  workshop: { ownerType: string; ownerId: string },
): Promise<boolean> {
  if (session.method !== 'password' || workshop.ownerType !== 'organization') return false;
  return requiresSsoOf(db, workshop.ownerId, session.userId);
}
