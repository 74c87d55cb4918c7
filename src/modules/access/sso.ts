import type { Database } from '../../db/database';
import { requiresSsoOf } from './repo';

/**
 * `sso_required` (docs/integrations.md#requiring-it-for-an-organization) for a live connection
 * joining a workshop (Socket.IO `join`, the Yjs endpoint): whether a session opened with `method`
 * may not, the workshop's organization requiring single sign-on of this member. Joins are rare
 * beside requests: asked of the database each time.
 */
export async function liveJoinRefused(
  db: Database['db'],
  session: { userId: string; method: 'password' | 'oidc' },
  workshop: { ownerType: string; ownerId: string },
): Promise<boolean> {
  if (session.method !== 'password' || workshop.ownerType !== 'organization') return false;
  return requiresSsoOf(db, workshop.ownerId, session.userId);
}
