import { and, eq } from 'drizzle-orm';
import type { AppDeps } from '../../deps';
import { workshopMembers } from '../../db/schema/index';
import { AppError, notFound } from '../../http/errors';
import type { UserRow } from '../../http/env';
import { diffFields, write } from '../events/recorder';
import { authorize } from '../access/rules';
import { loadAccess } from '../access/load';
import { countMembers, membersOf, type MemberRow } from './repo';
import { formatAccessCode, type UserRoleOutput } from './schemas';

export function toUserRole(row: MemberRow): UserRoleOutput {
  return { id: row.id, user_id: row.userId, role: row.role };
}

/** GET /v1/workshops/:id/user_roles: facilitator-only (CONTRACT §6), also in an archived workshop. */
export function listUserRoles(deps: AppDeps, user: UserRow, workshopId: string): UserRoleOutput[] {
  const { db } = deps.database;
  authorize(loadAccess(db, workshopId, user.id), 'facilitate', { allowArchived: true });
  return membersOf(db, workshopId).map(toUserRole);
}

/** GET /v1/workshops/:id/access_code: facilitator-only (CONTRACT §6), also in an archived workshop. */
export function getAccessCode(deps: AppDeps, user: UserRow, workshopId: string): { access_code: string } {
  const access = loadAccess(deps.database.db, workshopId, user.id);
  authorize(access, 'facilitate', { allowArchived: true });
  return { access_code: formatAccessCode(access.workshop.accessCode) };
}

/** PUT /v1/workshops/:id/user_roles/:id. A workshop always keeps at least one facilitator. */
export function updateUserRole(deps: AppDeps, user: UserRow, workshopId: string, memberId: string, role: UserRoleOutput['role']): UserRoleOutput {
  const { db } = deps.database;
  return write(deps, (tx, changes) => {
    authorize(loadAccess(db, workshopId, user.id), 'facilitate');
    const before = tx
      .select()
      .from(workshopMembers)
      .where(and(eq(workshopMembers.id, memberId), eq(workshopMembers.workshopId, workshopId)))
      .get();
    if (!before) throw notFound('User role');
    if (before.role === role) return toUserRole(before);
    if (before.role === 'facilitator' && countMembers(tx, workshopId, 'facilitator') <= 1) {
      throw new AppError('conflict', 'This is the last facilitator of the workshop; promote someone else first.');
    }
    const after = tx.update(workshopMembers).set({ role }).where(eq(workshopMembers.id, memberId)).returning().get();
    const [old, member] = [toUserRole(before), toUserRole(after)];
    changes.record({ workshopId, action: 'updateMember', userId: user.id, change: { member, changes: diffFields(old, member, ['role']) } });
    return member;
  });
}
