import { and, asc, eq } from 'drizzle-orm';
import { nowIso } from '../../db/columns';
import { creationOrder } from '../../db/creation-order';
import { tablesOf, type Db } from '../../db/database';
import type { InvitationRow } from './schemas';

/** The workshop's invitations, in the order they were first sent. */
export async function invitationsOf(db: Db, workshopId: string): Promise<InvitationRow[]> {
  const { invitations } = tablesOf(db);
  return db
    .select()
    .from(invitations)
    .where(eq(invitations.workshopId, workshopId))
    .orderBy(asc(invitations.createdAt), asc(creationOrder(invitations)));
}

/** The addresses of the workshop's members (null for guests). */
export async function memberAddressesOf(tx: Db, workshopId: string): Promise<(string | null)[]> {
  const { users, workshopMembers } = tablesOf(tx);
  const rows = await tx
    .select({ email: users.email })
    .from(workshopMembers)
    .innerJoin(users, eq(users.id, workshopMembers.userId))
    .where(eq(workshopMembers.workshopId, workshopId));
  return rows.map((r) => r.email);
}

export async function pendingInvitationTo(
  tx: Db,
  workshopId: string,
  email: string,
): Promise<InvitationRow | undefined> {
  const { invitations } = tablesOf(tx);
  const [pending] = await tx
    .select()
    .from(invitations)
    .where(and(eq(invitations.workshopId, workshopId), eq(invitations.email, email), eq(invitations.state, 'pending')));
  return pending;
}

export async function insertInvitation(
  tx: Db,
  values: Pick<InvitationRow, 'workshopId' | 'email' | 'role' | 'tokenHash' | 'content' | 'invitedBy'>,
): Promise<InvitationRow> {
  const { invitations } = tablesOf(tx);
  const [row] = await tx.insert(invitations).values(values).returning();
  return row!;
}

export async function deleteInvitationRow(tx: Db, invitationId: string): Promise<void> {
  const { invitations } = tablesOf(tx);
  await tx.delete(invitations).where(eq(invitations.id, invitationId));
}

export async function invitationByToken(db: Db, tokenHash: string): Promise<InvitationRow | undefined> {
  const { invitations } = tablesOf(db);
  const [row] = await db.select().from(invitations).where(eq(invitations.tokenHash, tokenHash));
  return row;
}

export async function invitationOf(tx: Db, workshopId: string, id: string): Promise<InvitationRow | undefined> {
  const { invitations } = tablesOf(tx);
  const [row] = await tx
    .select()
    .from(invitations)
    .where(and(eq(invitations.id, id), eq(invitations.workshopId, workshopId)));
  return row;
}

export async function markInvitationAccepted(tx: Db, invitationId: string, userId: string): Promise<InvitationRow> {
  const { invitations } = tablesOf(tx);
  const [after] = await tx
    .update(invitations)
    .set({ state: 'accepted', acceptedBy: userId, updatedAt: nowIso() })
    .where(eq(invitations.id, invitationId))
    .returning();
  return after!;
}

/** A new link (its token's hash), text and role for the invitation. */
export async function replaceInvitationToken(
  tx: Db,
  invitationId: string,
  fields: Pick<InvitationRow, 'tokenHash' | 'content' | 'role'>,
): Promise<InvitationRow> {
  const { invitations } = tablesOf(tx);
  const [after] = await tx
    .update(invitations)
    .set({ ...fields, updatedAt: nowIso() })
    .where(eq(invitations.id, invitationId))
    .returning();
  return after!;
}
