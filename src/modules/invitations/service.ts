import { and, asc, eq } from 'drizzle-orm';
import type { AppDeps } from '../../deps';
import type { Tx } from '../../db/client';
import { nowIso } from '../../db/columns';
import { invitations, users, workshopMembers } from '../../db/schema/index';
import { AppError, notFound } from '../../http/errors';
import type { UserRow } from '../../http/env';
import { loadAccess, type WorkshopRow } from '../access/load';
import { authorize } from '../access/rules';
import { hashToken, newToken } from '../auth/crypto';
import { write, type ChangeRecorder } from '../events/recorder';
import { queueMailFrom } from '../mail/outbox';
import { renderMail } from '../mail/templates';
import { admitParticipant } from '../workshops/join';
import { findWorkshop } from '../workshops/repo';
import { toInvitation, type InvitationOutput, type InvitationRow, type InviteInput } from './schemas';

/*
 * Invitations (spec: Invitations; CONTRACT §7): facilitators invite addresses; each gets a mail
 * with a one-time link `${PUBLIC_URL}/invitations/<token>`; whoever opens it signed in becomes a
 * participant. Only the token's hash is stored; sending again replaces it (the old link dies).
 */

export function listInvitations(deps: AppDeps, user: UserRow, workshopId: string): InvitationOutput[] {
  const { db } = deps.database;
  authorize(loadAccess(db, workshopId, user.id), 'facilitate', { allowArchived: true });
  return db.select().from(invitations).where(eq(invitations.workshopId, workshopId)).orderBy(asc(invitations.createdAt), asc(invitations.id)).all().map(toInvitation);
}

/** Invites each address: a new pending invitation, or the pending one sent again with a new link. */
export function invite(deps: AppDeps, user: UserRow, workshopId: string, input: InviteInput): InvitationOutput[] {
  const { db } = deps.database;
  return write(deps, (tx, changes) => {
    const access = loadAccess(db, workshopId, user.id);
    authorize(access, 'facilitate');
    const members = new Set(
      tx.select({ email: users.email }).from(workshopMembers).innerJoin(users, eq(users.id, workshopMembers.userId)).where(eq(workshopMembers.workshopId, workshopId)).all().map((r) => r.email),
    );
    const already = input.emails.filter((email) => members.has(email));
    if (already.length > 0) throw new AppError('already_member', `Already members of this workshop: ${already.join(', ')}.`);
    return input.emails.map((email) => {
      const pending = tx.select().from(invitations).where(and(eq(invitations.workshopId, workshopId), eq(invitations.email, email), eq(invitations.state, 'pending'))).get();
      if (pending) return sendAgain(deps, tx, changes, access.workshop, user, pending, input.content);
      const token = newToken();
      const row = tx.insert(invitations).values({ workshopId, email, tokenHash: hashToken(token), content: input.content, invitedBy: user.id }).returning().get();
      mailInvitation(deps, tx, access.workshop, user, row, token);
      const invitation = toInvitation(row);
      changes.record({ workshopId, action: 'addInvitation', userId: user.id, change: { invitation } });
      return invitation;
    });
  });
}

/** POST …/invitations/:id/resend: a new link (the old one stops working) and a new mail. */
export function resendInvitation(deps: AppDeps, user: UserRow, workshopId: string, invitationId: string): void {
  const { db } = deps.database;
  write(deps, (tx, changes) => {
    const access = loadAccess(db, workshopId, user.id);
    authorize(access, 'facilitate');
    const row = findInvitation(tx, workshopId, invitationId);
    if (row.state !== 'pending') throw new AppError('invitation_used', 'This invitation was accepted already.');
    sendAgain(deps, tx, changes, access.workshop, user, row, row.content);
  });
}

/** DELETE …/invitations/:id: the link stops working. */
export function deleteInvitation(deps: AppDeps, user: UserRow, workshopId: string, invitationId: string): void {
  const { db } = deps.database;
  write(deps, (tx, changes) => {
    authorize(loadAccess(db, workshopId, user.id), 'facilitate');
    const row = findInvitation(tx, workshopId, invitationId);
    tx.delete(invitations).where(eq(invitations.id, row.id)).run();
    changes.record({ workshopId, action: 'removeInvitation', userId: user.id, change: { invitation: toInvitation(row) } });
  });
}

/**
 * POST /v1/invitations/:token/accept: the caller becomes a participant (whatever address they
 * signed up with: the link is the proof). A used link answers 409 `invitation_used`, a deleted or
 * replaced one 404; the workshop's state and plan apply as for joining with the code.
 */
export function acceptInvitation(deps: AppDeps, user: UserRow, token: string): { workshop_id: string } {
  return write(deps, (tx, changes) => {
    const row = tx.select().from(invitations).where(eq(invitations.tokenHash, hashToken(token))).get();
    if (!row) throw notFound('Invitation');
    if (row.state !== 'pending') throw new AppError('invitation_used', 'This invitation was used already.');
    const workshop = findWorkshop(tx, row.workshopId);
    if (!workshop) throw notFound('Invitation');
    if (workshop.state === 'archived') throw new AppError('workshop_archived', 'This workshop is archived.');
    admitParticipant(deps, tx, changes, workshop, user.id);
    const after = tx.update(invitations).set({ state: 'accepted', acceptedBy: user.id, updatedAt: nowIso() }).where(eq(invitations.id, row.id)).returning().get();
    const invitation = toInvitation(after);
    changes.record({ workshopId: row.workshopId, action: 'updateInvitation', userId: user.id, change: { invitation, changes: { state: ['pending', 'accepted'] } } });
    return { workshop_id: row.workshopId };
  });
}

function findInvitation(tx: Tx, workshopId: string, id: string): InvitationRow {
  const row = tx.select().from(invitations).where(and(eq(invitations.id, id), eq(invitations.workshopId, workshopId))).get();
  if (!row) throw notFound('Invitation');
  return row;
}

function sendAgain(deps: AppDeps, tx: Tx, changes: ChangeRecorder, workshop: WorkshopRow, sender: UserRow, row: InvitationRow, content: string): InvitationOutput {
  const token = newToken();
  const after = tx.update(invitations).set({ tokenHash: hashToken(token), content, updatedAt: nowIso() }).where(eq(invitations.id, row.id)).returning().get();
  mailInvitation(deps, tx, workshop, sender, after, token);
  const invitation = toInvitation(after);
  changes.record({ workshopId: workshop.id, action: 'updateInvitation', userId: sender.id, change: { invitation, changes: { sent_at: [row.updatedAt, after.updatedAt] } } });
  return invitation;
}

function mailInvitation(deps: AppDeps, tx: Tx, workshop: WorkshopRow, sender: UserRow, row: InvitationRow, token: string): void {
  queueMailFrom(tx, { id: sender.id, perDay: deps.config.invitationMailsPerDay }, {
    to: row.email,
    subject: `${sender.name} invites you to "${workshop.title}"`,
    ...renderMail({
      greeting: 'Hello,',
      paragraphs: [`${sender.name} invites you to the workshop "${workshop.title}".`, row.content],
      action: { label: 'Join the workshop', url: `${deps.config.publicUrl}/invitations/${token}` },
      footer: 'Sign in, or sign up with any address, to join. The link works once.',
    }),
  });
}
