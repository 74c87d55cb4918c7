import { sqliteOf, type Db } from '../../db/client';
import { preparedPerDb } from '../../db/prepared';
import type { AppDeps } from '../../deps';
import type { UserRow } from '../../http/env';
import { loadAccess } from '../access/load';
import { isFacilitator } from '../access/rules';
import { workshopBudgetLeft } from '../votes/service';
import type { ParticipationOutput } from './schemas';

const statements = preparedPerDb((db: Db) => {
  const sqlite = sqliteOf(db);
  return {
    // One row per participant: positive points spent (from the tallies) and ratings given.
    progress: sqlite.prepare<[string], { id: string; name: string; votes_used: number; voted: number; ratings: number }>(
      `SELECT u.id, u.name,
              coalesce((SELECT sum(t.positive) FROM vote_tallies t WHERE t.workshop_id = m.workshop_id AND t.user_id = u.id), 0) AS votes_used,
              EXISTS (SELECT 1 FROM vote_tallies t WHERE t.workshop_id = m.workshop_id AND t.user_id = u.id) AS voted,
              (SELECT count(*) FROM ratings r WHERE r.workshop_id = m.workshop_id AND r.user_id = u.id) AS ratings
         FROM workshop_members m JOIN users u ON u.id = m.user_id
        WHERE m.workshop_id = ? AND m.role = 'participant'
        ORDER BY u.name, u.id`,
    ),
    workshop: sqlite.prepare<[string], { current_step_id: string | null; vote_positive: number }>('SELECT current_step_id, vote_positive FROM workshops WHERE id = ?'),
  };
});

/**
 * Who has taken part in the voting and rating (CONTRACT §9): `participants` counts members with the
 * participant role; `voted_any` those who have voted in the workshop, `voted_all` those whose
 * positive budget is spent (an unlimited budget never is), `rated_any` those who have rated.
 * `users` (facilitators only) gives each participant's points used and ratings, never a vote's value.
 */
export function participationOf(db: Db, workshopId: string, withUsers: boolean): ParticipationOutput {
  const q = statements(db);
  const workshop = q.workshop.get(workshopId);
  const rows = q.progress.all(workshopId);
  const limit = workshop?.vote_positive ?? -1;
  const counts: ParticipationOutput = {
    step_id: workshop?.current_step_id ?? null,
    participants: rows.length,
    voted_any: rows.filter((r) => r.voted).length,
    voted_all: rows.filter((r) => workshopBudgetLeft(limit, r.votes_used) <= 0).length,
    rated_any: rows.filter((r) => r.ratings > 0).length,
  };
  return withUsers ? { ...counts, users: rows.map(({ id, name, votes_used, ratings }) => ({ id, name, votes_used, ratings })) } : counts;
}

/** GET /v1/workshops/:id/participation (members; `users` for facilitators). */
export function getParticipation(deps: AppDeps, user: UserRow, workshopId: string): ParticipationOutput {
  const { db } = deps.database;
  const access = loadAccess(db, workshopId, user.id);
  return participationOf(db, workshopId, isFacilitator(access));
}
