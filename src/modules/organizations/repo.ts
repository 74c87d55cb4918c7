import { and, asc, eq, isNotNull, isNull, ne, sql } from 'drizzle-orm';
import { nowIso } from '../../db/columns';
import { tablesOf, type Db } from '../../db/database';
import { forUpdate } from '../../db/sql';
import { named, preparedPerDb } from '../../db/prepared';
import type { MemberWithUser, OrganizationMemberRow, OrganizationRow } from './schemas';
import { creationOrder } from '../../db/creation-order';

const queries = preparedPerDb((db: Db) => {
  const { organizationMembers, organizations } = tablesOf(db);
  return {
    organization: named(
      db
        .select()
        .from(organizations)
        .where(eq(organizations.id, sql.placeholder('id'))),
      'organizations_by_id',
    ),
    // Members' rows reference it: FOR NO KEY UPDATE (PostgreSQL; SQLite's writer holds all).
    lock: named(
      forUpdate(
        db,
        db
          .select({ id: organizations.id })
          .from(organizations)
          .where(eq(organizations.id, sql.placeholder('id'))),
        { referenced: true },
      ),
      'organizations_lock',
    ),
    membership: named(
      db
        .select()
        .from(organizationMembers)
        .where(
          and(
            eq(organizationMembers.organizationId, sql.placeholder('organizationId')),
            eq(organizationMembers.userId, sql.placeholder('userId')),
          ),
        ),
      'organizations_membership',
    ),
  };
});

/**
 * Locks the organization's row for the rest of the transaction: every write to an organization, or
 * to what its rules cover (its members, its avatar, its workshops being created), takes it first,
 * so those rules (the last admin stays) are checked and written by one request at a time, on any
 * instance. Taken before any user's lock (`lockUser`), always in that order.
 */
export async function lockOrganization(tx: Db, id: string): Promise<void> {
  await queries(tx).lock.execute({ id });
}

export async function findOrganization(db: Db, id: string): Promise<OrganizationRow | undefined> {
  return (await queries(db).organization.execute({ id }))[0];
}

/** The caller's membership; pending members (no account yet) never match a user. */
export async function findMembership(
  db: Db,
  organizationId: string,
  userId: string,
): Promise<OrganizationMemberRow | undefined> {
  return (await queries(db).membership.execute({ organizationId, userId }))[0];
}

export async function organizationsOf(db: Db, userId: string): Promise<OrganizationRow[]> {
  const { organizationMembers, organizations } = tablesOf(db);
  const rows = await db
    .select({ organization: organizations })
    .from(organizationMembers)
    .innerJoin(organizations, eq(organizations.id, organizationMembers.organizationId))
    .where(eq(organizationMembers.userId, userId))
    .orderBy(sql`lower(${organizations.name})`, asc(organizations.id));
  return rows.map((row) => row.organization);
}

function memberColumns(db: Db) {
  const { organizationMembers, users } = tablesOf(db);
  return {
    member: organizationMembers,
    userName: users.name,
    userEmail: users.email,
    userAvatarUrl: users.avatarUrl,
  };
}

function withUser(row: {
  member: OrganizationMemberRow;
  userName: string | null;
  userEmail: string | null;
  userAvatarUrl: string | null;
}): MemberWithUser {
  return {
    member: row.member,
    user:
      row.userName === null
        ? null
        : { name: row.userName, email: row.userEmail ?? row.member.email, avatarUrl: row.userAvatarUrl },
  };
}

/** Members in the order they were added (creation order: timestamps can tie within a millisecond). */
export async function membersOf(db: Db, organizationId: string): Promise<MemberWithUser[]> {
  const { organizationMembers, users } = tablesOf(db);
  const rows = await db
    .select(memberColumns(db))
    .from(organizationMembers)
    .leftJoin(users, eq(users.id, organizationMembers.userId))
    .where(eq(organizationMembers.organizationId, organizationId))
    .orderBy(creationOrder(organizationMembers));
  return rows.map(withUser);
}

export async function findMember(
  db: Db,
  organizationId: string,
  memberId: string,
): Promise<MemberWithUser | undefined> {
  const { organizationMembers, users } = tablesOf(db);
  const [row] = await db
    .select(memberColumns(db))
    .from(organizationMembers)
    .leftJoin(users, eq(users.id, organizationMembers.userId))
    .where(and(eq(organizationMembers.organizationId, organizationId), eq(organizationMembers.id, memberId)));
  return row && withUser(row);
}

export async function memberByEmail(
  db: Db,
  organizationId: string,
  email: string,
): Promise<OrganizationMemberRow | undefined> {
  const { organizationMembers } = tablesOf(db);
  const [row] = await db
    .select()
    .from(organizationMembers)
    .where(and(eq(organizationMembers.organizationId, organizationId), eq(organizationMembers.email, email)));
  return row;
}

/**
 * Links the pending seats added by this address to its account: only once the address is
 * confirmed (the caller has just confirmed it, holding the user's lock). Answers how many.
 */
export async function linkPendingSeats(tx: Db, userId: string, email: string): Promise<number> {
  const { organizationMembers } = tablesOf(tx);
  const linked = await tx
    .update(organizationMembers)
    .set({ userId })
    .where(and(eq(organizationMembers.email, email), isNull(organizationMembers.userId)))
    .returning({ id: organizationMembers.id });
  return linked.length;
}

/** Admins with an account other than `exceptMemberId`: who would be left to manage the organization. */
export async function otherActiveAdmins(db: Db, organizationId: string, exceptMemberId: string): Promise<number> {
  const { organizationMembers } = tablesOf(db);
  const [row] = await db
    .select({ n: sql<number>`count(*)`.mapWith(Number) })
    .from(organizationMembers)
    .where(
      and(
        eq(organizationMembers.organizationId, organizationId),
        eq(organizationMembers.role, 'admin'),
        isNotNull(organizationMembers.userId),
        ne(organizationMembers.id, exceptMemberId),
      ),
    );
  return row!.n;
}

/** A new organization on the `team` plan, with its creator as first admin. */
export async function insertOrganization(
  tx: Db,
  name: string,
  creator: { userId: string; email: string },
): Promise<OrganizationRow> {
  const { organizationMembers, organizations } = tablesOf(tx);
  const row = (await tx.insert(organizations).values({ name, planName: 'team' }).returning())[0]!;
  await tx
    .insert(organizationMembers)
    .values({ organizationId: row.id, userId: creator.userId, email: creator.email, role: 'admin' });
  return row;
}

export async function updateOrganization(
  tx: Db,
  organizationId: string,
  fields: { name?: string; ssoRequired?: boolean } | { avatarUrl: string | null },
): Promise<void> {
  const { organizations } = tablesOf(tx);
  await tx
    .update(organizations)
    .set({ ...fields, updatedAt: nowIso() })
    .where(eq(organizations.id, organizationId));
}

export async function insertMember(
  tx: Db,
  member: { organizationId: string; userId: string | null; email: string; role: OrganizationMemberRow['role'] },
): Promise<OrganizationMemberRow> {
  const { organizationMembers } = tablesOf(tx);
  return (await tx.insert(organizationMembers).values(member).returning())[0]!;
}

export async function updateMemberRole(tx: Db, memberId: string, role: OrganizationMemberRow['role']): Promise<void> {
  const { organizationMembers } = tablesOf(tx);
  await tx.update(organizationMembers).set({ role }).where(eq(organizationMembers.id, memberId));
}

export async function deleteMember(tx: Db, memberId: string): Promise<void> {
  const { organizationMembers } = tablesOf(tx);
  await tx.delete(organizationMembers).where(eq(organizationMembers.id, memberId));
}

/** The organization owning the workshop; undefined when a person owns it, or there is no such workshop. */
export async function organizationOwning(db: Db, workshopId: string): Promise<string | undefined> {
  const { workshops } = tablesOf(db);
  const [row] = await db
    .select({ ownerId: workshops.ownerId })
    .from(workshops)
    .where(and(eq(workshops.id, workshopId), eq(workshops.ownerType, 'organization')));
  return row?.ownerId;
}
