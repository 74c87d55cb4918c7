import { nowIso } from '../../db/columns';
import { notFound } from '../../http/errors';
import { deleteSessionById, sessionsOf } from './account-repo';
import { announceEndedWaysIn } from './address-proof';
import { deleteSessionsExcept } from './repo';
import type { AuthDeps } from './deps';
import type { SessionListOutput } from './schemas';

/*
 * Where a person is signed in (docs/api.md#an-accounts-life): their sessions, and ending them. An
 * ended session stops working at once on every instance (its row's trigger moves the identity
 * epoch) and its live connections close (`announceEndedWaysIn`).
 */

/** GET /v1/user/me/sessions: the sessions in force, the newest first; `current` is the caller's. */
export async function listSessions(
  deps: Pick<AuthDeps, 'database'>,
  userId: string,
  currentSession: string,
): Promise<SessionListOutput> {
  const rows = await sessionsOf(deps.database.db, userId, nowIso());
  return rows.map((row) => ({
    id: row.id,
    method: row.method,
    created_at: row.createdAt,
    last_used_at: row.lastUsedAt,
    user_agent: row.userAgent,
    current: row.tokenHash === currentSession,
  }));
}

/** DELETE /v1/user/me/sessions/:id: another person's session, or none, is 404. */
export async function endSession(deps: AuthDeps, userId: string, sessionId: string): Promise<void> {
  const tokenHash = await deps.database.transaction((tx) => deleteSessionById(tx, userId, sessionId));
  if (!tokenHash) throw notFound('session');
  announceEndedWaysIn(deps.bus, { userId, sessions: [tokenHash] });
}

/** DELETE /v1/user/me/sessions: every session but the caller's. */
export async function endOtherSessions(deps: AuthDeps, userId: string, currentSession: string): Promise<void> {
  const sessions = await deps.database.transaction((tx) => deleteSessionsExcept(tx, userId, currentSession));
  announceEndedWaysIn(deps.bus, { userId, sessions });
}
