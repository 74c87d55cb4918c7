import type { MiddlewareHandler } from 'hono';
import { routePath } from 'hono/route';
import type { Database } from '../../db/database';
import { notFound } from '../../http/errors';
import type { AppEnv } from '../../http/env';
import { loadAccess } from '../access/load';
import { workshopOfZone } from '../access/repo';
import { loadOrganizationAccess } from '../organizations/access';

/**
 * Where a kept answer is replayed (docs/api.md#idempotent-writes): after authentication and the
 * checks of guests, token scopes and single sign-on, and after the caller's access to the
 * workshop or organization the route names is loaded again, as the route itself would. So a
 * member removed since, or a session single sign-on now keeps out, gets the route's 404 or 403
 * rather than the answer kept from before.
 */
export function replayAfterAccess(deps: { database: Database }): MiddlewareHandler<AppEnv> {
  const { db } = deps.database;
  return async function replayKeptAnswer(c, next) {
    const replay = c.get('keptReplay');
    if (!replay) return next();
    // The route the request reached, as registered (`/v1/workshops/:workshop_id/cards`), and its path.
    const pattern = routePath(c, -1).split('/');
    const path = c.req.path.split('/').map((segment) => decodeURIComponent(segment));
    const named = (index: number) => (pattern[index]?.startsWith(':') ? path[index] : undefined);
    const user = c.get('user');
    if (pattern[2] === 'organizations' && named(3) !== undefined) {
      const settings = c.req.method === 'PUT' && pattern.length === 4;
      await loadOrganizationAccess(db, named(3)!, user, { settings });
    } else if (pattern[2] === 'workshops' && pattern[3] === 'canvas' && named(5) !== undefined) {
      const workshopId = await workshopOfZone(db, named(5)!);
      if (workshopId === null) throw notFound('zone');
      await loadAccess(db, workshopId, user);
    } else if (pattern[2] === 'workshops' && named(3) !== undefined) {
      await loadAccess(db, named(3)!, user);
    }
    return replay();
  };
}
