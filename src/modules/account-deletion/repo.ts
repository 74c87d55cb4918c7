import { and, asc, count, eq, gt, isNull, like, ne, or } from 'drizzle-orm';
import { creationOrder } from '../../db/creation-order';
import { tablesOf, type Db, type Schema } from '../../db/database';
import { DEFAULT_LANGUAGE, DEFAULT_TIME_ZONE } from '../../domain/languages';

/*
 * The queries of an account's deletion (docs/api.md#an-accounts-life): what the account has, to
 * plan it, and the statements that remove it. They reach across modules' tables on purpose: the
 * question is one, what is left of this person, and one transaction answers it.
 */

type WorkshopRow = Schema['workshops']['$inferSelect'];

/** The user's personal workshops (not an organization's), oldest first. */
export function personalWorkshopsOf(db: Db, userId: string): Promise<WorkshopRow[]> {
  const { workshops } = tablesOf(db);
  return db
    .select()
    .from(workshops)
    .where(and(eq(workshops.ownerType, 'user'), eq(workshops.ownerId, userId)))
    .orderBy(asc(workshops.createdAt), asc(workshops.id));
}

/** The workshop's facilitator of longest standing other than `userId` (the earliest membership), if any. */
export async function longestStandingFacilitator(
  db: Db,
  workshopId: string,
  userId: string,
): Promise<{ id: string; name: string } | undefined> {
  const { workshopMembers, users } = tablesOf(db);
  const [row] = await db
    .select({ id: users.id, name: users.name })
    .from(workshopMembers)
    .innerJoin(users, eq(users.id, workshopMembers.userId))
    .where(
      and(
        eq(workshopMembers.workshopId, workshopId),
        eq(workshopMembers.role, 'facilitator'),
        ne(workshopMembers.userId, userId),
      ),
    )
    .orderBy(asc(workshopMembers.createdAt), asc(creationOrder(workshopMembers)))
    .limit(1);
  return row;
}

/** The organizations the user has a seat in, by name, with their role and seat. */
export function seatsOf(
  db: Db,
  userId: string,
): Promise<Array<{ memberId: string; role: 'facilitator' | 'admin'; id: string; name: string }>> {
  const { organizationMembers, organizations } = tablesOf(db);
  return db
    .select({
      memberId: organizationMembers.id,
      role: organizationMembers.role,
      id: organizations.id,
      name: organizations.name,
    })
    .from(organizationMembers)
    .innerJoin(organizations, eq(organizations.id, organizationMembers.organizationId))
    .where(eq(organizationMembers.userId, userId))
    .orderBy(asc(organizations.name), asc(organizations.id));
}

/** Whether the organization has anything but this seat: another seat (a pending one too) or a workshop. */
export async function organizationHasMore(db: Db, organizationId: string, memberId: string): Promise<boolean> {
  const { organizationMembers, workshops } = tablesOf(db);
  const [seat] = await db
    .select({ id: organizationMembers.id })
    .from(organizationMembers)
    .where(and(eq(organizationMembers.organizationId, organizationId), ne(organizationMembers.id, memberId)))
    .limit(1);
  if (seat) return true;
  const [workshop] = await db
    .select({ id: workshops.id })
    .from(workshops)
    .where(and(eq(workshops.ownerType, 'organization'), eq(workshops.ownerId, organizationId)))
    .limit(1);
  return workshop !== undefined;
}

/** How many sessions, personal API tokens and notifications the user has. */
export async function countsOf(
  db: Db,
  userId: string,
  now: string,
): Promise<{ sessions: number; apiTokens: number; notifications: number }> {
  const { authTokens, apiTokens, notifications } = tablesOf(db);
  const [sessions] = await db
    .select({ n: count() })
    .from(authTokens)
    .where(and(eq(authTokens.userId, userId), gt(authTokens.expiresAt, now)));
  const [tokens] = await db
    .select({ n: count() })
    .from(apiTokens)
    .where(and(eq(apiTokens.userId, userId), isNull(apiTokens.revokedAt)));
  const [notes] = await db.select({ n: count() }).from(notifications).where(eq(notifications.userId, userId));
  return { sessions: Number(sessions!.n), apiTokens: Number(tokens!.n), notifications: Number(notes!.n) };
}

/** When the session of this token was opened (its sign-in); undefined for none of the user's. */
export async function signedInAt(db: Db, userId: string, tokenHash: string): Promise<string | undefined> {
  const { authTokens } = tablesOf(db);
  const [row] = await db
    .select({ createdAt: authTokens.createdAt })
    .from(authTokens)
    .where(and(eq(authTokens.userId, userId), eq(authTokens.tokenHash, tokenHash)));
  return row?.createdAt;
}

/** The workshop passes to `ownerId` (still a personal one). */
export async function passWorkshopOn(tx: Db, workshopId: string, ownerId: string, at: string): Promise<WorkshopRow> {
  const { workshops } = tablesOf(tx);
  const [row] = await tx
    .update(workshops)
    .set({ ownerId, updatedAt: at })
    .where(eq(workshops.id, workshopId))
    .returning();
  return row!;
}

export async function deleteOrganizationRow(tx: Db, organizationId: string): Promise<void> {
  const { organizations } = tablesOf(tx);
  await tx.delete(organizations).where(eq(organizations.id, organizationId));
}

/**
 * The workshops the account owns, has a seat in, or wrote, voted or rated in, by id: those whose
 * readers see something change when the account goes.
 */
export async function workshopsTouchedBy(db: Db, userId: string): Promise<string[]> {
  const t = tablesOf(db);
  const byUser = [t.workshopMembers, t.cards, t.comments, t.items, t.attachments, t.votes, t.ratings] as const;
  const ids = new Set((await personalWorkshopsOf(db, userId)).map((workshop) => workshop.id));
  for (const table of byUser) {
    const rows = await db.selectDistinct({ workshopId: table.workshopId }).from(table).where(eq(table.userId, userId));
    for (const row of rows) ids.add(row.workshopId);
  }
  return [...ids].sort();
}

/** What the account wrote in workshops that stay loses its author. */
export async function unauthor(tx: Db, userId: string): Promise<void> {
  const { cards, comments, items, attachments } = tablesOf(tx);
  await tx.update(cards).set({ userId: null }).where(eq(cards.userId, userId));
  await tx.update(comments).set({ userId: null }).where(eq(comments.userId, userId));
  await tx.update(items).set({ userId: null }).where(eq(items.userId, userId));
  await tx.update(attachments).set({ userId: null }).where(eq(attachments.userId, userId));
}

/**
 * Everything of the account's own but its row: seats in workshops and organizations (and the
 * pending organization seats for its address), personal API tokens, provider identities,
 * notifications, one-time links and the pending invitations it sent. Sessions go separately
 * (their hashes are needed to close live connections).
 */
export async function deleteBelongings(tx: Db, userId: string, email: string | null): Promise<void> {
  const t = tablesOf(tx);
  await tx.delete(t.workshopMembers).where(eq(t.workshopMembers.userId, userId));
  const mySeats = eq(t.organizationMembers.userId, userId);
  await tx
    .delete(t.organizationMembers)
    .where(
      email === null
        ? mySeats
        : or(mySeats, and(isNull(t.organizationMembers.userId), eq(t.organizationMembers.email, email))),
    );
  await tx.delete(t.apiTokens).where(eq(t.apiTokens.userId, userId));
  await tx.delete(t.userIdentities).where(eq(t.userIdentities.userId, userId));
  await tx.delete(t.notifications).where(eq(t.notifications.userId, userId));
  await tx.delete(t.oneTimeTokens).where(eq(t.oneTimeTokens.userId, userId));
  await tx.delete(t.invitations).where(and(eq(t.invitations.invitedBy, userId), eq(t.invitations.state, 'pending')));
}

/** The row stays as a tombstone: nothing left to sign in with, to be found by, or to show. */
export async function scrubUser(tx: Db, userId: string, at: string): Promise<void> {
  const { users } = tablesOf(tx);
  await tx
    .update(users)
    .set({
      email: null,
      name: '',
      passwordHash: null,
      avatarUrl: null,
      confirmedAt: null,
      locale: DEFAULT_LANGUAGE,
      timeZone: DEFAULT_TIME_ZONE,
      deletedAt: at,
      updatedAt: at,
    })
    .where(eq(users.id, userId));
}

/** Webhook messages whose body names the user (by id), to be read again without them. */
export function webhookBodiesNaming(tx: Db, userId: string): Promise<Array<{ id: string; body: string }>> {
  const { webhookMessages } = tablesOf(tx);
  return tx
    .select({ id: webhookMessages.id, body: webhookMessages.body })
    .from(webhookMessages)
    .where(like(webhookMessages.body, `%"${userId}"%`));
}

export async function setWebhookBody(tx: Db, id: string, body: string): Promise<void> {
  const { webhookMessages } = tablesOf(tx);
  await tx.update(webhookMessages).set({ body }).where(eq(webhookMessages.id, id));
}
