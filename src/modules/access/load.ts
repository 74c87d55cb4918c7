import { and, eq, sql } from 'drizzle-orm';
import { sqliteOf, type Db } from '../../db/client';
import { preparedPerDb } from '../../db/prepared';
import { organizationMembers, steps, workshopMembers, workshops } from '../../db/schema/index';
import { notFound } from '../../http/errors';
import { DEFAULT_PREFS, type StepPrefs, type WorkshopAccess, type WorkshopRole } from './rules';

export type WorkshopRow = typeof workshops.$inferSelect;

/** A caller's access with the whole workshop row, as every request on a workshop loads it. */
export interface LoadedAccess extends WorkshopAccess {
  workshop: WorkshopRow;
}

const userId = sql.placeholder('userId');
const isOrgAdmin = sql<number>`exists (select 1 from ${organizationMembers}
  where ${organizationMembers.organizationId} = ${workshops.ownerId}
    and ${organizationMembers.userId} = ${userId} and ${organizationMembers.role} = 'admin')`;

const queries = preparedPerDb((db: Db) => ({
  displays: sqliteOf(db).prepare<[string], { votes: number | null; ratings: number | null }>(
    `SELECT json_extract(s.prefs, '$.allow_display_votes') AS votes, json_extract(s.prefs, '$.allow_display_ratings') AS ratings
       FROM workshops w LEFT JOIN steps s ON s.id = w.current_step_id WHERE w.id = ?`,
  ),
  // Every request on a workshop starts here, so the workshop, the caller's membership, their
  // organization-admin status and the current step's prefs come from one statement.
  access: db
    .select({
      workshop: workshops,
      memberRole: workshopMembers.role,
      orgAdmin: sql<number>`case when ${workshops.ownerType} = 'organization' then ${isOrgAdmin} else 0 end`,
      stepPrefs: steps.prefs,
    })
    .from(workshops)
    .leftJoin(workshopMembers, and(eq(workshopMembers.workshopId, workshops.id), eq(workshopMembers.userId, userId)))
    .leftJoin(steps, eq(steps.id, workshops.currentStepId))
    .where(eq(workshops.id, sql.placeholder('workshopId')))
    .prepare(),
}));

/**
 * The caller's role in a workshop (admins of the owning organization act as facilitators), with
 * the workshop and the current step's prefs; null for a stranger or a missing workshop.
 */
export function findAccess(db: Db, workshopId: string, userId: string): LoadedAccess | null {
  const row = queries(db).access.get({ workshopId, userId });
  if (!row) return null;
  const role: WorkshopRole | null = row.memberRole === 'facilitator' || row.orgAdmin ? 'facilitator' : row.memberRole;
  if (!role) return null;
  return { workshop: row.workshop, userId, role, prefs: row.stepPrefs ?? DEFAULT_PREFS };
}

/**
 * `findAccess` for requests: non-members get 404, never 403, so a stranger does not learn that
 * the workshop exists.
 */
export function loadAccess(db: Db, workshopId: string, userId: string): LoadedAccess {
  const access = findAccess(db, workshopId, userId);
  if (!access) throw notFound('Workshop');
  return access;
}

/**
 * What the current step lets every participant see of others' feedback, for renderings made once
 * for many readers (live events); a single reader's view comes from `seesAllVotes` /
 * `seesAllRatings` on their access.
 */
export function workshopDisplays(db: Db, workshopId: string): Pick<StepPrefs, 'allow_display_votes' | 'allow_display_ratings'> {
  const row = queries(db).displays.get(workshopId);
  return {
    allow_display_votes: row?.votes == null ? DEFAULT_PREFS.allow_display_votes : row.votes === 1,
    allow_display_ratings: row?.ratings == null ? DEFAULT_PREFS.allow_display_ratings : row.ratings === 1,
  };
}
