import { and, asc, eq, sql } from 'drizzle-orm';
import { tablesOf, type Db } from '../../db/database';
import { named, preparedPerDb } from '../../db/prepared';

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

/** One row per participant, by name: positive points spent (from the tallies), whether they voted, ratings given. */
export function participantProgress(db: Db, workshopId: string) {
  return statements(db).progress.execute({ workshopId });
}

/** The workshop's current step and positive vote budget. */
export async function participationWorkshop(db: Db, workshopId: string) {
  const [workshop] = await statements(db).workshop.execute({ workshopId });
  return workshop;
}
