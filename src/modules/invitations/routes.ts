import { Hono } from 'hono';
import * as v from 'valibot';
import type { AppDeps } from '../../deps';
import { actingDeps } from '../../http/acting';
import type { AppEnv } from '../../http/env';
import { doc } from '../../http/openapi';
import { jsonBody } from '../../http/validation';
import { AcceptedOutput, InvitationPreviewOutput, InviteInput } from './schemas';
import { InvitationOutput } from '../../domain/invitations';
import {
  acceptInvitation,
  deleteInvitation,
  invite,
  listInvitations,
  previewInvitation,
  resendInvitation,
} from './service';

const tag = 'Invitations';
const path = '/workshops/:workshop_id/invitations';

export function invitationsRoutes(deps: AppDeps) {
  return new Hono<AppEnv>()
    .get(
      path,
      doc({
        tag,
        summary: 'List the invitations of a workshop',
        response: v.array(InvitationOutput),
        errors: { 403: 'Facilitators only' },
      }),
      async (c) => {
        return c.json(await listInvitations(deps, c.get('user'), c.req.param('workshop_id')), 200);
      },
    )
    .post(
      path,
      doc({
        tag,
        summary:
          'Invite e-mail addresses (comma-separated) as participants or, with `role: facilitator`, co-facilitators; each gets a mail with a one-time link',
        status: 201,
        response: v.array(InvitationOutput),
        errors: {
          409: 'already_member: an address belongs to a member; or the workshop is archived',
          429: 'The caller sent their daily budget of invitation mails',
        },
      }),
      jsonBody(InviteInput),
      async (c) =>
        c.json(await invite(actingDeps(deps, c), c.get('user'), c.req.param('workshop_id'), c.req.valid('json')), 201),
    )
    .post(
      `${path}/:id/resend`,
      doc({
        tag,
        summary: 'Send an invitation again with a new link (the old one stops working)',
        status: 204,
        errors: {
          409: 'invitation_used: already accepted',
          429: 'The caller sent their daily budget of invitation mails',
        },
      }),
      async (c) => {
        await resendInvitation(actingDeps(deps, c), c.get('user'), c.req.param('workshop_id'), c.req.param('id'));
        return c.body(null, 204);
      },
    )
    .delete(
      `${path}/:id`,
      doc({ tag, summary: 'Delete an invitation (its link stops working)', status: 204 }),
      async (c) => {
        await deleteInvitation(actingDeps(deps, c), c.get('user'), c.req.param('workshop_id'), c.req.param('id'));
        return c.body(null, 204);
      },
    )
    .post(
      '/invitations/:token/accept',
      doc({
        tag,
        summary: "Accept an invitation: the caller becomes a member with the invitation's role",
        response: AcceptedOutput,
        errors: {
          404: 'No invitation has this link (deleted, or sent again since)',
          409: 'invitation_used, workshop_archived or attendee_limit_reached',
        },
      }),
      async (c) => c.json(await acceptInvitation(actingDeps(deps, c), c.get('user'), c.req.param('token')), 200),
    );
}

/** An invitation's link read before signing in, mounted before the routes that need a token. */
export function invitationPreviewRoutes(deps: AppDeps) {
  return new Hono<AppEnv>().get(
    '/invitations/:token',
    doc({
      tag,
      summary: 'What an invitation link is for: the workshop, who invited, the address invited, the role',
      response: InvitationPreviewOutput,
      auth: false,
      errors: { 404: 'No invitation has this link (deleted, or sent again since)' },
    }),
    async (c) => c.json(await previewInvitation(deps, c.req.param('token')), 200),
  );
}
