import { and, eq } from 'drizzle-orm';
import type { AppDeps } from '../../deps';
import { tablesOf } from '../../db/database';
import { AppError, notFound } from '../../http/errors';
import type { UserRow } from '../../http/env';
import { diffFields, writeWorkshop } from '../events/recorder';
import { authorize } from '../access/rules';
import { loadAccess } from '../access/load';
import { countMembers, membersOf, type MemberRow } from './repo';
import { formatAccessCode, type UserRoleOutput } from './schemas';

export function toUserRole(row: MemberRow): UserRoleOutput {
  return { id: row.id, user_id: row.userId, role: row.role };
}

/** GET /v1/workshops/:id/user_roles: facilitator-only (CONTRACT §6), also in an archived workshop. */
export async function listUserRoles(deps: AppDeps, user: UserRow, workshopId: string): Promise<UserRoleOutput[]> {
  const { db } = deps.database;
  authorize(await loadAccess(db, workshopId, user.id), 'facilitate', { allowArchived: true });
  return (await membersOf(db, workshopId)).map(toUserRole);
}

/** GET /v1/workshops/:id/access_code: facilitator-only (CONTRACT §6), also in an archived workshop. */
export async function getAccessCode(deps: AppDeps, user: UserRow, workshopId: string): Promise<{ access_code: string }> {
  const access = await loadAccess(deps.database.db, workshopId, user.id);
  authorize(access, 'facilitate', { allowArchived: true });
  return { access_code: formatAccessCode(access.workshop.accessCode) };
}

/** PUT /v1/workshops/:id/user_roles/:id. A workshop always keeps at least one facilitator. */
export function updateUserRole(deps: AppDeps, user: UserRow, workshopId: string, memberId: string, role: UserRoleOutput['role']): Promise<UserRoleOutput> {
  return writeWorkshop(deps, workshopId, async (tx, changes) => {
    const { workshopMembers } = tablesOf(tx);
    authorize(await loadAccess(tx, workshopId, user.id), 'facilitate');
    const [before] = await tx
      .select()
      .from(workshopMembers)
      .where(and(eq(workshopMembers.id, memberId), eq(workshopMembers.workshopId, workshopId)));
    if (!before) throw notFound('User role');
    if (before.role === role) return toUserRole(before);
    if (before.role === 'facilitator' && (await countMembers(tx, workshopId, 'facilitator')) <= 1) {
      throw new AppError('conflict', 'This is the last facilitator of the workshop; promote someone else first.');
    }
    const [after] = await tx.update(workshopMembers).set({ role }).where(eq(workshopMembers.id, memberId)).returning();
    const [old, member] = [toUserRole(before), toUserRole(after!)];
    changes.record({ workshopId, action: 'updateMember', userId: user.id, change: { member, changes: diffFields(old, member, ['role']) } });
    return member;
  });
}
