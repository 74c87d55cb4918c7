import * as v from 'valibot';
import { InvitationOutput, InvitationRole } from '../../domain/invitations';
import type { Schema } from '../../db/database';
import { EmailInput } from '../../domain/users';
import { said } from '../../i18n/valibot';

export type InvitationRow = Schema['invitations']['$inferSelect'];

export function toInvitation(row: InvitationRow): InvitationOutput {
  return { id: row.id, email: row.email, state: row.state, role: row.role };
}

/** At most this many addresses per request. */
export const MAX_INVITED = 100;

/** `emails`: one or more addresses separated by commas (blanks and repeats ignored). */
export const InviteInput = v.object({
  emails: v.pipe(
    v.string(),
    v.maxLength(30_000),
    v.transform((s) => [
      ...new Set(
        s
          .split(',')
          .map((e) => e.trim().toLowerCase())
          .filter(Boolean),
      ),
    ]),
    v.minLength(1, said('error.validation.emails_none')),
    v.maxLength(MAX_INVITED, said('error.validation.emails_many', { max: MAX_INVITED })),
    v.check(
      (list) => list.every((e) => v.is(EmailInput, e)),
      // Names the addresses refused, so the sender knows which one to correct.
      (issue) => {
        const refused = (issue.input as string[]).filter((e) => !v.is(EmailInput, e));
        const which = refused.length === 1 ? 'Not an e-mail address' : 'Not e-mail addresses';
        return `${which}: ${refused.join(', ')} (separate addresses with commas).`;
      },
    ),
  ),
  content: v.pipe(v.string(), v.trim(), v.minLength(1, said('error.validation.empty')), v.maxLength(5_000)),
  /** What accepting makes the invitee: a participant unless said, or a co-facilitator. */
  role: v.optional(v.picklist(InvitationRole.options, said('error.validation.invitation_role')), 'participant'),
});
export type InviteInput = v.InferOutput<typeof InviteInput>;

export const AcceptedOutput = v.object({ workshop_id: v.string() });

/**
 * What an invitation's link shows before it is accepted: the workshop, who invited, to which
 * address, and the role accepting gives.
 */
export const InvitationPreviewOutput = v.object({
  workshop_title: v.string(),
  invited_by: v.string(),
  email: v.string(),
  state: v.picklist(['pending', 'accepted']),
  role: InvitationRole,
});
export type InvitationPreviewOutput = v.InferOutput<typeof InvitationPreviewOutput>;
