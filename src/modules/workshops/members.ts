import type { AppDeps } from '../../deps';
import type { Db } from '../../db/database';
import type { WorkshopRole } from '../../domain/permissions';
import type { ChangeRecorder } from '../../domain/recorder';
import { AppError, notFound } from '../../http/errors';
import type { UserRow } from '../../http/env';
import { writeWorkshop } from '../../db/write';
import { diffFields } from '../../domain/events';
import { authorize, requireMayHoldRole } from '../access/rules';
import { loadAccess, type WorkshopRow } from '../access/load';
import { ownerOf } from './output';
import { joinKeyFor } from './join-key';
import { countMembers, membersWithUsers, setMemberRole } from './members-repo';
import type { MemberRow } from './repo';
import { formatAccessCode, type AccessCodeOutput } from './schemas';
import type { UserRoleOutput } from '../../domain/workshops';
import { msg } from '../../i18n/messages';

export function toUserRole(row: MemberRow, user: Pick<UserRow, 'name' | 'guest'>): UserRoleOutput {
  return { id: row.id, user_id: row.userId, role: row.role, name: user.name, guest: user.guest };
}

/** GET /v1/workshops/:id/user_roles: facilitator-only (docs/api.md#who-may-do-what), also in an archived workshop. */
export async function listUserRoles(deps: AppDeps, user: UserRow, workshopId: string): Promise<UserRoleOutput[]> {
  const { db } = deps.database;
  authorize(await loadAccess(db, workshopId, user), 'facilitate', { allowArchived: true });
  return (await membersWithUsers(db, workshopId)).map(({ member, ...who }) => toUserRole(member, who));
}

/**
 * GET /v1/workshops/:id/access_code: facilitator-only (docs/api.md#who-may-do-what), also in an archived workshop
 * (whose link opens again only if it runs again under the same code).
 */
export async function getAccessCode(deps: AppDeps, user: UserRow, workshopId: string): Promise<AccessCodeOutput> {
  const access = await loadAccess(deps.database.db, workshopId, user);
  authorize(access, 'facilitate', { allowArchived: true });
  const { config } = deps;
  return {
    access_code: formatAccessCode(access.workshop.accessCode),
    join_url: `${config.publicUrl}/join#key=${joinKeyFor(config.secret, access.workshop)}`,
  };
}

/** PUT /v1/workshops/:id/user_roles/:id. A workshop always keeps at least one facilitator. */
export function updateUserRole(
  deps: AppDeps,
  user: UserRow,
  workshopId: string,
  memberId: string,
  role: UserRoleOutput['role'],
): Promise<UserRoleOutput> {
  return writeWorkshop(deps, workshopId, async (tx, changes) => {
    const access = await loadAccess(tx, workshopId, user);
    authorize(access, 'facilitate');
    const [found] = await membersWithUsers(tx, workshopId, memberId);
    if (!found) throw notFound('user_role');
    const { member: before, ...who } = found;
    if (before.role === role) return toUserRole(before, who);
    requireMayHoldRole(who, role);
    if (before.role === 'facilitator' && (await countMembers(tx, workshopId, 'facilitator')) <= 1) {
      throw new AppError('conflict', msg('error.workshops.last_facilitator'));
    }
    // A facilitator made a participant takes a seat of the plan like anyone joining.
    if (role === 'participant') await requireAttendeeRoom(deps, tx, access.workshop);
    return changeMemberRole(tx, changes, user.id, before, who, role);
  });
}

/**
 * Refuses one more participant when the owner's plan is full (`attendee_limit_reached`):
 * facilitators are not attendees, so joining as one, or being promoted, takes no seat, and a
 * facilitator made a participant takes one. Under the workshop's lock (the caller's write).
 */
export async function requireAttendeeRoom(
  deps: Pick<AppDeps, 'config'>,
  tx: Db,
  workshop: Pick<WorkshopRow, 'id' | 'ownerType' | 'ownerId'>,
): Promise<void> {
  const { plan } = await ownerOf(tx, deps.config, workshop);
  if ((await countMembers(tx, workshop.id, 'participant')) >= plan.workshops_max_attendees) {
    throw new AppError(
      'attendee_limit_reached',
      msg('error.workshops.full', { plan: plan.name, max: plan.workshops_max_attendees }),
    );
  }
}

/** Gives a member `role`, logged as `updateMember` by `actorId`; the caller has checked it may. */
export async function changeMemberRole(
  tx: Db,
  changes: ChangeRecorder,
  actorId: string,
  before: MemberRow,
  who: Pick<UserRow, 'name' | 'guest'>,
  role: WorkshopRole,
): Promise<UserRoleOutput> {
  const after = await setMemberRole(tx, before.id, role);
  const [old, member] = [toUserRole(before, who), toUserRole(after, who)];
  changes.record({
    workshopId: before.workshopId,
    action: 'updateMember',
    userId: actorId,
    change: { member, changes: diffFields(old, member, ['role']) },
  });
  return member;
}
