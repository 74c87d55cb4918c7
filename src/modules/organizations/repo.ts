import { and, asc, eq, isNotNull, ne, sql } from 'drizzle-orm';
import type { Db, DbOrTx } from '../../db/client';
import { preparedPerDb } from '../../db/prepared';
import { organizationMembers, organizations, users } from '../../db/schema/index';
import type { MemberWithUser, OrganizationMemberRow, OrganizationRow } from './schemas';

const queries = preparedPerDb((db: Db) => ({
  organization: db.select().from(organizations).where(eq(organizations.id, sql.placeholder('id'))).prepare(),
  membership: db
    .select()
    .from(organizationMembers)
    .where(and(eq(organizationMembers.organizationId, sql.placeholder('organizationId')), eq(organizationMembers.userId, sql.placeholder('userId'))))
    .prepare(),
}));

export function findOrganization(db: DbOrTx, id: string): OrganizationRow | undefined {
  return queries(db as Db).organization.get({ id });
}

/** The caller's membership; pending members (no account yet) never match a user. */
export function findMembership(db: DbOrTx, organizationId: string, userId: string): OrganizationMemberRow | undefined {
  return queries(db as Db).membership.get({ organizationId, userId });
}

export function organizationsOf(db: DbOrTx, userId: string): OrganizationRow[] {
  return db
    .select({ organization: organizations })
    .from(organizationMembers)
    .innerJoin(organizations, eq(organizations.id, organizationMembers.organizationId))
    .where(eq(organizationMembers.userId, userId))
    .orderBy(sql`${organizations.name} collate nocase`, asc(organizations.id))
    .all()
    .map((row) => row.organization);
}

const memberColumns = {
  member: organizationMembers,
  userName: users.name,
  userEmail: users.email,
  userAvatarUrl: users.avatarUrl,
};

function withUser(row: { member: OrganizationMemberRow; userName: string | null; userEmail: string | null; userAvatarUrl: string | null }): MemberWithUser {
  return {
    member: row.member,
    user: row.userName === null ? null : { name: row.userName, email: row.userEmail ?? row.member.email, avatarUrl: row.userAvatarUrl },
  };
}

/** Members in the order they were added (rowid: timestamps can tie within a millisecond). */
export function membersOf(db: DbOrTx, organizationId: string): MemberWithUser[] {
  return db
    .select(memberColumns)
    .from(organizationMembers)
    .leftJoin(users, eq(users.id, organizationMembers.userId))
    .where(eq(organizationMembers.organizationId, organizationId))
    .orderBy(sql`${organizationMembers}.rowid`)
    .all()
    .map(withUser);
}

export function findMember(db: DbOrTx, organizationId: string, memberId: string): MemberWithUser | undefined {
  const row = db
    .select(memberColumns)
    .from(organizationMembers)
    .leftJoin(users, eq(users.id, organizationMembers.userId))
    .where(and(eq(organizationMembers.organizationId, organizationId), eq(organizationMembers.id, memberId)))
    .get();
  return row && withUser(row);
}

export function memberByEmail(db: DbOrTx, organizationId: string, email: string): OrganizationMemberRow | undefined {
  return db
    .select()
    .from(organizationMembers)
    .where(and(eq(organizationMembers.organizationId, organizationId), eq(organizationMembers.email, email)))
    .get();
}

/** Admins with an account other than `exceptMemberId`: who would be left to manage the organization. */
export function otherActiveAdmins(db: DbOrTx, organizationId: string, exceptMemberId: string): number {
  return db
    .select({ n: sql<number>`count(*)` })
    .from(organizationMembers)
    .where(
      and(
        eq(organizationMembers.organizationId, organizationId),
        eq(organizationMembers.role, 'admin'),
        isNotNull(organizationMembers.userId),
        ne(organizationMembers.id, exceptMemberId),
      ),
    )
    .get()!.n;
}
