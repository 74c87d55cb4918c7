import { and, asc, eq, sql } from 'drizzle-orm';
import { tablesOf, type Db } from '../../db/database';
import { named, preparedPerDb } from '../../db/prepared';
import { sqlBoolean } from '../../db/sql';
import type { AppDeps } from '../../deps';
import type { UserRow } from '../../http/env';
import { loadAccess } from '../access/load';
import { isFacilitator } from '../access/rules';
import { workshopBudgetLeft } from '../votes/service';
import type { ParticipationOutput } from './schemas';

const statements = preparedPerDb((db: Db) => {
  const { ratings, users, voteTallies, workshopMembers, workshops } = tablesOf(db);
  const workshopId = sql.placeholder('workshopId');
  const ownTallies = and(eq(voteTallies.workshopId, workshopMembers.workshopId), eq(voteTallies.userId, users.id));
  return {
    // One row per participant: positive points spent (from the tallies) and ratings given.
    progress: named(
      db
        .select({
          id: users.id,
          name: users.name,
          guest: users.guest,
          votes_used:
            sql<number>`coalesce((select sum(${voteTallies.positive}) from ${voteTallies} where ${ownTallies}), 0)`.mapWith(
              Number,
            ),
          voted: sql<unknown>`exists (select 1 from ${voteTallies} where ${ownTallies})`,
          ratings:
            sql<number>`(select count(*) from ${ratings} where ${ratings.workshopId} = ${workshopMembers.workshopId} and ${ratings.userId} = ${users.id})`.mapWith(
              Number,
            ),
        })
        .from(workshopMembers)
        .innerJoin(users, eq(users.id, workshopMembers.userId))
        .where(and(eq(workshopMembers.workshopId, workshopId), eq(workshopMembers.role, 'participant')))
        .orderBy(asc(users.name), asc(users.id)),
      'participation_progress',
    ),
    workshop: named(
      db
        .select({ currentStepId: workshops.currentStepId, votePositive: workshops.votePositive })
        .from(workshops)
        .where(eq(workshops.id, workshopId)),
      'participation_workshop',
    ),
  };
});

/**
 * Who has taken part in the voting and rating (docs/api.md#participation): `participants` counts members with the
 * participant role; `voted_any` those who have voted in the workshop, `voted_all` those whose
 * positive budget is spent (an unlimited budget never is), `rated_any` those who have rated.
 * `users` (facilitators only) gives each participant's points used and ratings, never a vote's value.
 */
export async function participationOf(db: Db, workshopId: string, withUsers: boolean): Promise<ParticipationOutput> {
  const q = statements(db);
  const [workshop] = await q.workshop.execute({ workshopId });
  const rows = await q.progress.execute({ workshopId });
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
  const access = await loadAccess(db, workshopId, user.id);
  return participationOf(db, workshopId, isFacilitator(access));
}
