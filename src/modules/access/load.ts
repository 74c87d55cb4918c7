import { and, eq, sql } from 'drizzle-orm';
import { tablesOf, type Db } from '../../db/database';
import { named, preparedPerDb } from '../../db/prepared';
import { jsonText, sqlBoolean } from '../../db/sql';
import type { Schema } from '../../db/database';
import { notFound } from '../../http/errors';
import { DEFAULT_PREFS, type StepPrefs, type WorkshopAccess, type WorkshopRole } from './rules';

export type WorkshopRow = Schema['workshops']['$inferSelect'];

/** A caller's access with the whole workshop row, as every request on a workshop loads it. */
export interface LoadedAccess extends WorkshopAccess {
  workshop: WorkshopRow;
}

const queries = preparedPerDb((db: Db) => {
  const { organizationMembers, steps, workshopMembers, workshops } = tablesOf(db);
  const userId = sql.placeholder('userId');
  const isOrgAdmin = sql<boolean>`exists (select 1 from ${organizationMembers}
    where ${organizationMembers.organizationId} = ${workshops.ownerId}
      and ${organizationMembers.userId} = ${userId} and ${organizationMembers.role} = 'admin')`;
  return {
    displays: named(
      db
        .select({
          votes: jsonText(db, steps.prefs, 'allow_display_votes'),
          ratings: jsonText(db, steps.prefs, 'allow_display_ratings'),
        })
        .from(workshops)
        .leftJoin(steps, eq(steps.id, workshops.currentStepId))
        .where(eq(workshops.id, sql.placeholder('workshopId'))),
      'access_displays',
    ),
    // Every request on a workshop starts here, so the workshop, the caller's membership, their
    // organization-admin status and the current step's prefs come from one statement.
    access: named(
      db
        .select({
          workshop: workshops,
          memberRole: workshopMembers.role,
          orgAdmin: sql<boolean>`case when ${workshops.ownerType} = 'organization' then ${isOrgAdmin} else false end`,
          stepPrefs: steps.prefs,
        })
        .from(workshops)
        .leftJoin(workshopMembers, and(eq(workshopMembers.workshopId, workshops.id), eq(workshopMembers.userId, userId)))
        .leftJoin(steps, eq(steps.id, workshops.currentStepId))
        .where(eq(workshops.id, sql.placeholder('workshopId'))),
      'access_load',
    ),
  };
});

/**
 * The caller's role in a workshop (admins of the owning organization act as facilitators), with
 * the workshop and the current step's prefs; null for a stranger or a missing workshop.
 */
export async function findAccess(db: Db, workshopId: string, userId: string): Promise<LoadedAccess | null> {
  const [row] = await queries(db).access.execute({ workshopId, userId });
  if (!row) return null;
  const role: WorkshopRole | null = row.memberRole === 'facilitator' || sqlBoolean(row.orgAdmin) ? 'facilitator' : row.memberRole;
  if (!role) return null;
  return { workshop: row.workshop, userId, role, prefs: row.stepPrefs ?? DEFAULT_PREFS };
}

/**
 * `findAccess` for requests: non-members get 404, never 403, so a stranger does not learn that
 * the workshop exists.
 */
export async function loadAccess(db: Db, workshopId: string, userId: string): Promise<LoadedAccess> {
  const access = await findAccess(db, workshopId, userId);
  if (!access) throw notFound('Workshop');
  return access;
}

/**
 * What the current step lets every participant see of others' feedback, for renderings made once
 * for many readers (live events); a single reader's view comes from `seesAllVotes` /
 * `seesAllRatings` on their access.
 */
export async function workshopDisplays(db: Db, workshopId: string): Promise<Pick<StepPrefs, 'allow_display_votes' | 'allow_display_ratings'>> {
  const [row] = await queries(db).displays.execute({ workshopId });
  return {
    allow_display_votes: displayPref(row?.votes, DEFAULT_PREFS.allow_display_votes),
    allow_display_ratings: displayPref(row?.ratings, DEFAULT_PREFS.allow_display_ratings),
  };
}

/** A JSON boolean read out of a document: SQLite answers 1 or 0, PostgreSQL's `->>` 'true' or 'false'. */
function displayPref(value: unknown, fallback: boolean): boolean {
  if (value === null || value === undefined) return fallback;
  return value === 1 || value === 'true' || value === true;
}
