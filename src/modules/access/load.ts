import { and, eq, sql } from 'drizzle-orm';
import { tablesOf, type Db } from '../../db/database';
import { named, preparedPerDb } from '../../db/prepared';
import { inList, inPairs, jsonText, sqlBoolean } from '../../db/sql';
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

/** The statements of `findAccesses`: lists bound as one parameter (`inList`, `inPairs`). */
const batchQueries = preparedPerDb((db: Db) => {
  const { organizationMembers, steps, workshopMembers, workshops } = tablesOf(db);
  const p = sql.placeholder;
  return {
    workshops: named(
      db.select({ workshop: workshops, stepPrefs: steps.prefs }).from(workshops).leftJoin(steps, eq(steps.id, workshops.currentStepId)).where(inList(db, workshops.id, p('workshopIds'))),
      'access_batch_workshops',
    ),
    members: named(
      db
        .select({ workshopId: workshopMembers.workshopId, userId: workshopMembers.userId, role: workshopMembers.role })
        .from(workshopMembers)
        .where(inPairs(db, workshopMembers.workshopId, workshopMembers.userId, p('pairs'))),
      'access_batch_members',
    ),
    admins: named(
      db
        .select({ organizationId: organizationMembers.organizationId, userId: organizationMembers.userId })
        .from(organizationMembers)
        .where(and(eq(organizationMembers.role, 'admin'), inPairs(db, organizationMembers.organizationId, organizationMembers.userId, p('pairs')))),
      'access_batch_admins',
    ),
  };
});

/** The key of a user's access to a workshop in the map `findAccesses` answers. */
export const accessKey = (workshopId: string, userId: string) => `${workshopId}\u0000${userId}`;

/**
 * `findAccess` for many users of many workshops at once (a batch of votes): by `accessKey`, the
 * strangers left out. Three statements at most, whatever the numbers.
 */
export async function findAccesses(db: Db, asked: ReadonlyArray<{ workshopId: string; userId: string }>): Promise<Map<string, LoadedAccess>> {
  const q = batchQueries(db);
  const accesses = new Map<string, LoadedAccess>();
  if (asked.length === 0) return accesses;
  const found = await q.workshops.execute({ workshopIds: JSON.stringify([...new Set(asked.map((a) => a.workshopId))]) });
  const byId = new Map(found.map((row) => [row.workshop.id, { workshop: row.workshop, prefs: row.stepPrefs ?? DEFAULT_PREFS }]));
  const pairs = [...new Map(asked.filter((a) => byId.has(a.workshopId)).map((a) => [accessKey(a.workshopId, a.userId), [a.workshopId, a.userId] as const])).values()];
  if (pairs.length === 0) return accesses;
  for (const { workshopId, userId, role } of await q.members.execute({ pairs: JSON.stringify(pairs) })) {
    accesses.set(accessKey(workshopId, userId), { ...byId.get(workshopId)!, userId, role });
  }
  // Admins of an owning organization act as facilitators (as in `findAccess`).
  const owned = pairs.flatMap(([workshopId, userId]) => {
    const { workshop } = byId.get(workshopId)!;
    return workshop.ownerType === 'organization' ? [[workshop.ownerId, userId, workshopId] as const] : [];
  });
  if (owned.length > 0) {
    const admins = await q.admins.execute({ pairs: JSON.stringify(owned.map(([organizationId, userId]) => [organizationId, userId])) });
    const isAdmin = new Set(admins.map((row) => `${row.organizationId}\u0000${row.userId}`));
    for (const [organizationId, userId, workshopId] of owned) {
      if (isAdmin.has(`${organizationId}\u0000${userId}`)) accesses.set(accessKey(workshopId, userId), { ...byId.get(workshopId)!, userId, role: 'facilitator' });
    }
  }
  return accesses;
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
