import { and, asc, count, eq } from 'drizzle-orm';
import { newId, nowIso } from '../../db/columns';
import { creationOrder } from '../../db/creation-order';
import { tablesOf, type Db } from '../../db/database';
import type { WorkshopRole } from '../../domain/permissions';
import type { MemberRow } from './repo';

/* Queries of a workshop's members (workshop_members), in the order they joined. */

/** A workshop's members (or the one with `memberId`) with their users' names, in the order they joined. */
export function membersWithUsers(db: Db, workshopId: string, memberId?: string) {
  const { users, workshopMembers } = tablesOf(db);
  const ofWorkshop = eq(workshopMembers.workshopId, workshopId);
  return db
    .select({ member: workshopMembers, name: users.name, guest: users.guest })
    .from(workshopMembers)
    .innerJoin(users, eq(users.id, workshopMembers.userId))
    .where(memberId === undefined ? ofWorkshop : and(ofWorkshop, eq(workshopMembers.id, memberId)))
    .orderBy(asc(workshopMembers.createdAt), asc(creationOrder(workshopMembers)));
}

/** Whether the user is a member of any workshop. */
export async function hasAnySeat(db: Db, userId: string): Promise<boolean> {
  const { workshopMembers } = tablesOf(db);
  const [seat] = await db
    .select({ id: workshopMembers.id })
    .from(workshopMembers)
    .where(eq(workshopMembers.userId, userId))
    .limit(1);
  return seat !== undefined;
}

export function membersOf(db: Db, workshopId: string): Promise<MemberRow[]> {
  const { workshopMembers } = tablesOf(db);
  return db
    .select()
    .from(workshopMembers)
    .where(eq(workshopMembers.workshopId, workshopId))
    .orderBy(asc(workshopMembers.createdAt), asc(creationOrder(workshopMembers)));
}

export async function countMembers(db: Db, workshopId: string, role: WorkshopRole): Promise<number> {
  const { workshopMembers } = tablesOf(db);
  const [row] = await db
    .select({ n: count() })
    .from(workshopMembers)
    .where(and(eq(workshopMembers.workshopId, workshopId), eq(workshopMembers.role, role)));
  return row!.n;
}

/** The user's seat in the workshop, if they have one. */
export async function memberOfUser(db: Db, workshopId: string, userId: string): Promise<MemberRow | undefined> {
  const { workshopMembers } = tablesOf(db);
  const [member] = await db
    .select()
    .from(workshopMembers)
    .where(and(eq(workshopMembers.workshopId, workshopId), eq(workshopMembers.userId, userId)));
  return member;
}

/** The user joins the workshop with `role`. */
export async function insertMember(tx: Db, workshopId: string, userId: string, role: WorkshopRole): Promise<MemberRow> {
  const { workshopMembers } = tablesOf(tx);
  const [member] = await tx
    .insert(workshopMembers)
    .values({ id: newId(), workshopId, userId, role, createdAt: nowIso() })
    .returning();
  return member!;
}

export async function setMemberRole(tx: Db, memberId: string, role: WorkshopRole): Promise<MemberRow> {
  const { workshopMembers } = tablesOf(tx);
  const [after] = await tx.update(workshopMembers).set({ role }).where(eq(workshopMembers.id, memberId)).returning();
  return after!;
}
