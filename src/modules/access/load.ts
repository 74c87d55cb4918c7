import { and, eq, sql } from 'drizzle-orm';
import { tablesOf, type Db } from '../../db/database';
import { named, preparedPerDb } from '../../db/prepared';
import { inList, inPairs, sqlBoolean } from '../../db/sql';
import type { Schema } from '../../db/database';
import { notFound } from '../../http/errors';
import { DEFAULT_PREFS, type StepPrefs, type WorkshopAccess, type WorkshopRole } from '../../domain/permissions';

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
    currentPrefs: named(
      db
        .select({ prefs: steps.prefs })
        .from(workshops)
        .leftJoin(steps, eq(steps.id, workshops.currentStepId))
        .where(eq(workshops.id, sql.placeholder('workshopId'))),
      'access_current_prefs',
    ),
    // Facilitators by membership, and the admins of the organization owning the workshop.
    facilitators: named(
      db
        .select({ userId: workshopMembers.userId })
        .from(workshopMembers)
        .where(
          and(eq(workshopMembers.workshopId, sql.placeholder('workshopId')), eq(workshopMembers.role, 'facilitator')),
        )
        .union(
          db
            .select({ userId: sql<string>`${organizationMembers.userId}` })
            .from(organizationMembers)
            .innerJoin(
              workshops,
              and(eq(workshops.ownerType, 'organization'), eq(workshops.ownerId, organizationMembers.organizationId)),
            )
            .where(and(eq(workshops.id, sql.placeholder('workshopId')), eq(organizationMembers.role, 'admin'))),
        ),
      'access_facilitators',
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
        .leftJoin(
          workshopMembers,
          and(eq(workshopMembers.workshopId, workshops.id), eq(workshopMembers.userId, userId)),
        )
        .leftJoin(steps, eq(steps.id, workshops.currentStepId))
        .where(eq(workshops.id, sql.placeholder('workshopId'))),
      'access_load',
    ),
  };
});

/** The current step's prefs over the defaults: a step stored before a pref existed has the default. */
function prefsOf(stepPrefs: StepPrefs | null): StepPrefs {
  return stepPrefs ? { ...DEFAULT_PREFS, ...stepPrefs } : DEFAULT_PREFS;
}

/**
 * A user's role in a workshop, from their membership (if any) and whether they are an admin of
 * the organization owning it: such admins act as facilitators. Null for a stranger.
 */
function roleOf(memberRole: WorkshopRole | null | undefined, isOrgAdmin: boolean): WorkshopRole | null {
  return memberRole === 'facilitator' || isOrgAdmin ? 'facilitator' : (memberRole ?? null);
}

/**
 * The caller's role in a workshop (`roleOf`), with the workshop and the current step's prefs; null
 * for a stranger or a missing workshop.
 */
export async function findAccess(db: Db, workshopId: string, userId: string): Promise<LoadedAccess | null> {
  const [row] = await queries(db).access.execute({ workshopId, userId });
  if (!row) return null;
  const role = roleOf(row.memberRole, sqlBoolean(row.orgAdmin));
  if (!role) return null;
  return { workshop: row.workshop, userId, role, prefs: prefsOf(row.stepPrefs) };
}

/** The statements of `findAccesses`: lists bound as one parameter (`inList`, `inPairs`). */
const batchQueries = preparedPerDb((db: Db) => {
  const { organizationMembers, steps, workshopMembers, workshops } = tablesOf(db);
  const p = sql.placeholder;
  return {
    workshops: named(
      db
        .select({ workshop: workshops, stepPrefs: steps.prefs })
        .from(workshops)
        .leftJoin(steps, eq(steps.id, workshops.currentStepId))
        .where(inList(db, workshops.id, p('workshopIds'))),
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
        .where(
          and(
            eq(organizationMembers.role, 'admin'),
            inPairs(db, organizationMembers.organizationId, organizationMembers.userId, p('pairs')),
          ),
        ),
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
export async function findAccesses(
  db: Db,
  asked: ReadonlyArray<{ workshopId: string; userId: string }>,
): Promise<Map<string, LoadedAccess>> {
  const q = batchQueries(db);
  const accesses = new Map<string, LoadedAccess>();
  if (asked.length === 0) return accesses;
  const found = await q.workshops.execute({
    workshopIds: JSON.stringify([...new Set(asked.map((a) => a.workshopId))]),
  });
  const byId = new Map(
    found.map((row) => [row.workshop.id, { workshop: row.workshop, prefs: prefsOf(row.stepPrefs) }]),
  );
  const pairs = [
    ...new Map(
      asked
        .filter((a) => byId.has(a.workshopId))
        .map((a) => [accessKey(a.workshopId, a.userId), [a.workshopId, a.userId] as const]),
    ).values(),
  ];
  if (pairs.length === 0) return accesses;
  const members = await q.members.execute({ pairs: JSON.stringify(pairs) });
  const memberRoles = new Map(members.map((row) => [accessKey(row.workshopId, row.userId), row.role]));
  // Only workshops an organization owns have organization admins to look for.
  const owned = pairs.flatMap(([workshopId, userId]) => {
    const { workshop } = byId.get(workshopId)!;
    return workshop.ownerType === 'organization' ? [[workshop.ownerId, userId] as const] : [];
  });
  const admins = owned.length === 0 ? [] : await q.admins.execute({ pairs: JSON.stringify(owned) });
  const isAdmin = new Set(admins.map((row) => `${row.organizationId}\u0000${row.userId}`));
  for (const [workshopId, userId] of pairs) {
    const { workshop, prefs } = byId.get(workshopId)!;
    const orgAdmin = workshop.ownerType === 'organization' && isAdmin.has(`${workshop.ownerId}\u0000${userId}`);
    const role = roleOf(memberRoles.get(accessKey(workshopId, userId)), orgAdmin);
    if (role) accesses.set(accessKey(workshopId, userId), { workshop, prefs, userId, role });
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
 * The current step's prefs (the defaults with no current step), for renderings made once for many
 * readers (live events); a single reader's view comes from the prefs on their access.
 */
export async function currentPrefs(db: Db, workshopId: string): Promise<StepPrefs> {
  const [row] = await queries(db).currentPrefs.execute({ workshopId });
  return prefsOf(row?.prefs ?? null);
}

/** Everyone who acts as a facilitator of the workshop: its facilitators and, for an organization's workshop, the organization's admins. */
export async function facilitatorIds(db: Db, workshopId: string): Promise<Set<string>> {
  return new Set((await queries(db).facilitators.execute({ workshopId })).map((row) => row.userId));
}
