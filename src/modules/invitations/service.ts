import type { AppDeps } from '../../deps';
import type { Db } from '../../db/database';
import { AppError, notFound } from '../../http/errors';
import type { UserRow } from '../../http/env';
import { loadAccess, type WorkshopRow } from '../access/load';
import { authorize } from '../access/rules';
import { hashToken, newToken } from '../auth/crypto';
import { writeWorkshop } from '../../db/write';
import type { ChangeRecorder } from '../../domain/recorder';
import { t } from '../../i18n/messages';
import { mailLanguage } from '../mail/language';
import { queueMailFrom } from '../mail/outbox';
import { renderMail } from '../mail/templates';
import { admitMember } from '../workshops/join';
import { findWorkshop } from '../workshops/repo';
import {
  deleteInvitationRow,
  insertInvitation,
  invitationByToken,
  invitationOf,
  invitationsOf,
  markInvitationAccepted,
  memberAddressesOf,
  pendingInvitationTo,
  replaceInvitationToken,
} from './repo';
import { findUser, localeByEmail } from '../users/repo';
import { toInvitation, type InvitationPreviewOutput, type InvitationRow, type InviteInput } from './schemas';
import type { InvitationOutput } from '../../domain/invitations';
import { msg } from '../../i18n/messages';

/*
 * Invitations (spec: Invitations; docs/api.md#invitations): facilitators invite addresses; each gets a mail
 * with a one-time link `${PUBLIC_URL}/invitations/<token>`; whoever opens it signed in becomes a
 * member with the invitation's role (a participant, or a co-facilitator). Only the token's hash is
 * stored; sending again replaces it (the old link dies).
 */

export async function listInvitations(deps: AppDeps, user: UserRow, workshopId: string): Promise<InvitationOutput[]> {
  const { db } = deps.database;
  authorize(await loadAccess(db, workshopId, user), 'facilitate', { allowArchived: true });
  return (await invitationsOf(db, workshopId)).map(toInvitation);
}

/**
 * Invites each address with `input.role`: a new pending invitation, or the pending one sent again
 * with a new link, the new text and the role asked now.
 */
export function invite(
  deps: AppDeps,
  user: UserRow,
  workshopId: string,
  input: InviteInput,
): Promise<InvitationOutput[]> {
  return writeWorkshop(deps, workshopId, async (tx, changes) => {
    const access = await loadAccess(tx, workshopId, user);
    authorize(access, 'facilitate');
    const members = new Set(await memberAddressesOf(tx, workshopId));
    const already = input.emails.filter((email) => members.has(email));
    if (already.length > 0)
      throw new AppError('already_member', msg('error.invitations.already_members', { emails: already.join(', ') }));
    const sent: InvitationOutput[] = [];
    for (const email of input.emails) {
      const pending = await pendingInvitationTo(tx, workshopId, email);
      if (pending) {
        sent.push(await sendAgain(deps, tx, changes, access.workshop, user, pending, input));
        continue;
      }
      const token = newToken();
      const row = await insertInvitation(tx, {
        workshopId,
        email,
        role: input.role,
        tokenHash: hashToken(token),
        content: input.content,
        invitedBy: user.id,
      });
      await mailInvitation(deps, tx, access.workshop, user, row, token);
      const invitation = toInvitation(row);
      changes.record({ workshopId, action: 'addInvitation', userId: user.id, change: { invitation } });
      sent.push(invitation);
    }
    return sent;
  });
}

/** POST …/invitations/:id/resend: a new link (the old one stops working) and a new mail. */
export async function resendInvitation(
  deps: AppDeps,
  user: UserRow,
  workshopId: string,
  invitationId: string,
): Promise<void> {
  await writeWorkshop(deps, workshopId, async (tx, changes) => {
    const access = await loadAccess(tx, workshopId, user);
    authorize(access, 'facilitate');
    const row = await findInvitation(tx, workshopId, invitationId);
    if (row.state !== 'pending') throw new AppError('invitation_used', msg('error.invitations.accepted'));
    await sendAgain(deps, tx, changes, access.workshop, user, row, row);
  });
}

/** DELETE …/invitations/:id: the link stops working. */
export async function deleteInvitation(
  deps: AppDeps,
  user: UserRow,
  workshopId: string,
  invitationId: string,
): Promise<void> {
  await writeWorkshop(deps, workshopId, async (tx, changes) => {
    authorize(await loadAccess(tx, workshopId, user), 'facilitate');
    const row = await findInvitation(tx, workshopId, invitationId);
    await deleteInvitationRow(tx, row.id);
    changes.record({
      workshopId,
      action: 'removeInvitation',
      userId: user.id,
      change: { invitation: toInvitation(row) },
    });
  });
}

/**
 * GET /v1/invitations/:token: what the link's page says before anyone signs in (the link is the
 * proof, as for accepting): the workshop's title, who invited, the address invited, the role. A
 * deleted or replaced link is a 404.
 */
export async function previewInvitation(deps: AppDeps, token: string): Promise<InvitationPreviewOutput> {
  const { db } = deps.database;
  const row = await invitationByToken(db, hashToken(token));
  const workshop = row && (await findWorkshop(db, row.workshopId));
  if (!row || !workshop) throw notFound('invitation');
  const sender = await findUser(db, row.invitedBy);
  return {
    workshop_title: workshop.title,
    invited_by: sender?.name ?? '',
    email: row.email,
    state: row.state,
    role: row.role,
  };
}

/**
 * POST /v1/invitations/:token/accept: the caller becomes a member with the invitation's role
 * (whatever address they signed up with: the link is the proof). A used link answers 409
 * `invitation_used`, a deleted or replaced one 404; the workshop's state applies, and its plan to
 * participants, as for joining with the code.
 */
export async function acceptInvitation(deps: AppDeps, user: UserRow, token: string): Promise<{ workshop_id: string }> {
  const tokenHash = hashToken(token);
  // The write takes the lock of the invitation's workshop first (`writeWorkshop`): the invitation
  // is found before it, and read again under it (it may have been used or sent again meanwhile).
  const found = await invitationByToken(deps.database.db, tokenHash);
  if (!found) throw notFound('invitation');
  return writeWorkshop(deps, found.workshopId, async (tx, changes) => {
    const row = await invitationByToken(tx, tokenHash);
    if (!row) throw notFound('invitation');
    if (row.state !== 'pending') throw new AppError('invitation_used', msg('error.invitations.used'));
    const workshop = await findWorkshop(tx, row.workshopId);
    if (!workshop) throw notFound('invitation');
    if (workshop.state === 'archived') throw new AppError('workshop_archived', msg('error.invitations.archived'));
    await admitMember(deps, tx, changes, workshop, user, row.role);
    const after = await markInvitationAccepted(tx, row.id, user.id);
    const invitation = toInvitation(after);
    changes.record({
      workshopId: row.workshopId,
      action: 'updateInvitation',
      userId: user.id,
      change: { invitation, changes: { state: ['pending', 'accepted'] } },
    });
    return { workshop_id: row.workshopId };
  });
}

async function findInvitation(tx: Db, workshopId: string, id: string): Promise<InvitationRow> {
  const row = await invitationOf(tx, workshopId, id);
  if (!row) throw notFound('invitation');
  return row;
}

async function sendAgain(
  deps: AppDeps,
  tx: Db,
  changes: ChangeRecorder,
  workshop: WorkshopRow,
  sender: UserRow,
  row: InvitationRow,
  wanted: Pick<InvitationRow, 'content' | 'role'>,
): Promise<InvitationOutput> {
  const token = newToken();
  const after = await replaceInvitationToken(tx, row.id, {
    tokenHash: hashToken(token),
    content: wanted.content,
    role: wanted.role,
  });
  await mailInvitation(deps, tx, workshop, sender, after, token);
  const invitation = toInvitation(after);
  changes.record({
    workshopId: workshop.id,
    action: 'updateInvitation',
    userId: sender.id,
    change: {
      invitation,
      changes: {
        sent_at: [row.updatedAt, after.updatedAt],
        ...(row.role === after.role ? {} : { role: [row.role, after.role] }),
      },
    },
  });
  return invitation;
}

async function mailInvitation(
  deps: AppDeps,
  tx: Db,
  workshop: WorkshopRow,
  sender: UserRow,
  row: InvitationRow,
  token: string,
): Promise<void> {
  // A person with an account reads it in their locale; an address alone, in the workshop's language.
  const lang = mailLanguage(await localeByEmail(tx, row.email), workshop.language);
  const words = { sender: sender.name, title: workshop.title, role: row.role };
  await queueMailFrom(
    tx,
    { id: sender.id, perDay: deps.config.invitationMailsPerDay },
    {
      to: row.email,
      subject: t(lang, 'mail.invitation.subject', words),
      ...renderMail(lang, {
        greeting: t(lang, 'mail.greeting.anonymous'),
        paragraphs: [t(lang, 'mail.invitation.body', words), row.content],
        action: { label: t(lang, 'mail.invitation.action'), url: `${deps.config.publicUrl}/invitations/${token}` },
        footer: t(lang, 'mail.invitation.footer'),
      }),
    },
  );
}
