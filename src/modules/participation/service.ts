import type { Db } from '../../db/database';
import { sqlBoolean } from '../../db/sql';
import type { AppDeps } from '../../deps';
import type { UserRow } from '../../http/env';
import { loadAccess } from '../access/load';
import { isFacilitator } from '../access/rules';
import { workshopBudgetLeft } from '../votes/service';
import { participantProgress, participationWorkshop } from './repo';
import type { ParticipationOutput } from './schemas';

/**
 * Who has taken part in the voting and rating (docs/api.md#participation): `participants` counts members with the
 * participant role; `voted_any` those who have voted in the workshop, `voted_all` those whose
 * positive budget is spent (an unlimited budget never is), `rated_any` those who have rated.
 * `users` (facilitators only) gives each participant's points used and ratings, never a vote's value.
 */
export async function participationOf(db: Db, workshopId: string, withUsers: boolean): Promise<ParticipationOutput> {
  const workshop = await participationWorkshop(db, workshopId);
  const rows = await participantProgress(db, workshopId);
  const limit = workshop?.votePositive ?? -1;
  const counts: ParticipationOutput = {
    step_id: workshop?.currentStepId ?? null,
    participants: rows.length,
    voted_any: rows.filter((r) => sqlBoolean(r.voted)).length,
    voted_all: rows.filter((r) => workshopBudgetLeft(limit, r.votes_used) <= 0).length,
    rated_any: rows.filter((r) => r.ratings > 0).length,
  };
  return withUsers
    ? {
        ...counts,
        users: rows.map(({ id, name, guest, votes_used, ratings }) => ({
          id,
          name,
          guest: sqlBoolean(guest),
          votes_used,
          ratings,
        })),
      }
    : counts;
}

/** GET /v1/workshops/:id/participation (members; `users` for facilitators). */
export async function getParticipation(deps: AppDeps, user: UserRow, workshopId: string): Promise<ParticipationOutput> {
  const { db } = deps.database;
  const access = await loadAccess(db, workshopId, user);
  return participationOf(db, workshopId, isFacilitator(access));
}
