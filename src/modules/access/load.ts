import type { Db, Schema } from '../../db/database';
import { sqlBoolean } from '../../db/sql';
import { notFound, ssoRequired } from '../../http/errors';
import {
  DEFAULT_PREFS,
  ssoBars,
  type Caller,
  type StepPrefs,
  type WorkshopAccess,
  type WorkshopRole,
} from '../../domain/permissions';
import {
  accessRow,
  currentStepPrefs,
  facilitatorUserIds,
  memberRolesAmong,
  organizationAdminsAmong,
  workshopsWithStepPrefs,
} from './repo';

export type WorkshopRow = Schema['workshops']['$inferSelect'];

/** A caller's access with the whole workshop row, as every request on a workshop loads it. */
export interface LoadedAccess extends WorkshopAccess {
  workshop: WorkshopRow;
}

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
 * The caller's role in a workshop (`roleOf`), with the workshop, the current step's prefs and
 * whether it is in its lobby; null for a stranger or a missing workshop.
 */
export async function findAccess(db: Db, workshopId: string, userId: string): Promise<LoadedAccess | null> {
  return accessOf(await accessRow(db, workshopId, userId), userId);
}

function accessOf(row: Awaited<ReturnType<typeof accessRow>>, userId: string): LoadedAccess | null {
  const role = row && roleOf(row.memberRole, sqlBoolean(row.orgAdmin));
  return role
    ? { workshop: row.workshop, userId, role, prefs: prefsOf(row.stepPrefs), inLobby: sqlBoolean(row.inLobby) }
    : null;
}

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
  const accesses = new Map<string, LoadedAccess>();
  if (asked.length === 0) return accesses;
  const found = await workshopsWithStepPrefs(db, [...new Set(asked.map((a) => a.workshopId))]);
  const byId = new Map(
    found.map((row) => [
      row.workshop.id,
      { workshop: row.workshop, prefs: prefsOf(row.stepPrefs), inLobby: sqlBoolean(row.inLobby) },
    ]),
  );
  const pairs = [
    ...new Map(
      asked
        .filter((a) => byId.has(a.workshopId))
        .map((a) => [accessKey(a.workshopId, a.userId), [a.workshopId, a.userId] as const]),
    ).values(),
  ];
  if (pairs.length === 0) return accesses;
  const members = await memberRolesAmong(db, pairs);
  const memberRoles = new Map(members.map((row) => [accessKey(row.workshopId, row.userId), row.role]));
  // Only workshops an organization owns have organization admins to look for.
  const owned = pairs.flatMap(([workshopId, userId]) => {
    const { workshop } = byId.get(workshopId)!;
    return workshop.ownerType === 'organization' ? [[workshop.ownerId, userId] as const] : [];
  });
  const admins = owned.length === 0 ? [] : await organizationAdminsAmong(db, owned);
  const isAdmin = new Set(admins.map((row) => `${row.organizationId}\u0000${row.userId}`));
  for (const [workshopId, userId] of pairs) {
    const { workshop, prefs, inLobby } = byId.get(workshopId)!;
    const orgAdmin = workshop.ownerType === 'organization' && isAdmin.has(`${workshop.ownerId}\u0000${userId}`);
    const role = roleOf(memberRoles.get(accessKey(workshopId, userId)), orgAdmin);
    if (role) accesses.set(accessKey(workshopId, userId), { workshop, prefs, inLobby, userId, role });
  }
  return accesses;
}

/**
 * `findAccess` for requests: non-members get 404, never 403, so a stranger does not learn that
 * the workshop exists; a member whose session single sign-on keeps out of the workshop's
 * organization gets 403 `sso_required`, whatever route asked (`requireSsoAllows`).
 */
export async function loadAccess(db: Db, workshopId: string, caller: Caller): Promise<LoadedAccess> {
  const row = await accessRow(db, workshopId, caller.id);
  // Only members of the owning organization are kept out, and they may know its workshops: told why.
  if (row) requireSsoAllows(caller, row.workshop);
  const access = accessOf(row, caller.id);
  if (!access) throw notFound('workshop');
  return access;
}

/**
 * 403 `sso_required` when single sign-on keeps the caller's session out of what `owner` owns
 * (docs/integrations.md#requiring-it-for-an-organization): for accesses loaded other than by
 * `loadAccess` (a batch of votes).
 */
export function requireSsoAllows(caller: Caller, owner: { ownerType: string; ownerId: string }): void {
  if (ssoBars(caller, owner)) throw ssoRequired();
}

/**
 * The current step's prefs (the defaults with no current step), for renderings made once for many
 * readers (live events); a single reader's view comes from the prefs on their access.
 */
export async function currentPrefs(db: Db, workshopId: string): Promise<StepPrefs> {
  return prefsOf(await currentStepPrefs(db, workshopId));
}

/** Everyone who acts as a facilitator of the workshop: its facilitators and, for an organization's workshop, the organization's admins. */
export async function facilitatorIds(db: Db, workshopId: string): Promise<Set<string>> {
  return new Set(await facilitatorUserIds(db, workshopId));
}
