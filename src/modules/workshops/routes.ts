import { Hono } from 'hono';
import * as v from 'valibot';
import type { AppDeps } from '../../deps';
import { actingDeps } from '../../http/acting';
import type { AppEnv } from '../../http/env';
import { doc } from '../../http/openapi';
import { jsonBody, queryParams } from '../../http/validation';
import { NativeImports } from './create-from-native';
import { joinRateLimits, joinWorkshop } from './join';
import { deleteAllOf, sendMessage } from './maintenance';
import { getAccessCode, listUserRoles, updateUserRole } from './members';
import {
  AccessCodeOutput,
  CreateWorkshopInput,
  CustomWorkshopInput,
  JoinInput,
  ListWorkshopsQuery,
  MessageInput,
  OrganizationWorkshopsQuery,
  RecipientsOutput,
  UpdateUserRoleInput,
  UpdateWorkshopInput,
} from './schemas';
import { WorkshopOutput } from '../../domain/workshops';
import { UserRoleOutput } from '../../domain/workshops';
import {
  createOrganizationWorkshop,
  createWorkshop,
  deleteWorkshop,
  getWorkshopBody,
  listOrganizationWorkshops,
  listWorkshops,
  updateWorkshop,
} from './service';

const tag = 'Workshops';

export function workshopsRoutes(deps: AppDeps) {
  // Imports from URLs started through this app: limited per user, rebuilt one at a time.
  const imports = new NativeImports(deps);
  const joinLimits = joinRateLimits(deps);
  return new Hono<AppEnv>()
    .get(
      '/user/me/workshops',
      doc({ tag, summary: 'List the workshops of the current user', response: v.array(WorkshopOutput) }),
      queryParams(ListWorkshopsQuery),
      async (c) => {
        return c.json(await listWorkshops(deps, c.get('user'), c.req.valid('query')), 200);
      },
    )
    .post(
      '/workshops/join',
      doc({
        tag,
        summary: 'Join a workshop with its access code, or with the key of its join link',
        response: WorkshopOutput,
        errors: {
          404: 'No running workshop has this code, or this key (the workshop ended or has a new code)',
          409: 'attendee_limit_reached',
          429: 'Too many wrong codes from this user or address (a join key is never refused)',
        },
      }),
      joinLimits.perUser,
      ...joinLimits.perAddress,
      jsonBody(JoinInput),
      async (c) => c.json(await joinWorkshop(actingDeps(deps, c), c.get('user'), c.req.valid('json')), 200),
    )
    .post(
      '/workshops',
      doc({
        tag,
        summary: 'Create a workshop (custom, from a template, a copy, or a native file at a URL)',
        status: 201,
        response: WorkshopOutput,
        errors: {
          404: 'The workshop to copy does not exist or is not visible to the caller',
          429: 'Too many imports from URLs in a minute (10 by default)',
        },
      }),
      jsonBody(CreateWorkshopInput),
      async (c) => {
        return c.json(await createWorkshop(actingDeps(deps, c), c.get('user'), c.req.valid('json'), imports), 201);
      },
    )
    .get(
      '/organizations/:organization_id/workshops',
      doc({
        tag,
        summary: "List an organization's workshops (its members, and its API tokens)",
        response: v.array(WorkshopOutput),
      }),
      queryParams(OrganizationWorkshopsQuery),
      async (c) => {
        const filters = c.req.valid('query');
        return c.json(
          await listOrganizationWorkshops(deps, c.get('user'), c.req.param('organization_id'), filters),
          200,
        );
      },
    )
    .post(
      '/organizations/:organization_id/workshops',
      doc({ tag, summary: 'Create a workshop owned by an organization', status: 201, response: WorkshopOutput }),
      jsonBody(CustomWorkshopInput),
      async (c) =>
        c.json(
          await createOrganizationWorkshop(
            actingDeps(deps, c),
            c.get('user'),
            c.req.param('organization_id'),
            c.req.valid('json'),
          ),
          201,
        ),
    )
    .get('/workshops/:id', doc({ tag, summary: 'Get a workshop', response: WorkshopOutput }), async (c) => {
      const { body, role } = await getWorkshopBody(deps, c.get('user'), c.req.param('id'), c.get('identityEpoch'));
      // The caller's own role, so a client knows what it may open without asking to be refused.
      return c.body(body, 200, { 'Content-Type': 'application/json', 'X-Workshop-Role': role });
    })
    .put(
      '/workshops/:id',
      doc({ tag, summary: 'Update, archive, restore or change the step of a workshop', response: WorkshopOutput }),
      jsonBody(UpdateWorkshopInput),
      async (c) => {
        return c.json(
          await updateWorkshop(actingDeps(deps, c), c.get('user'), c.req.param('id'), c.req.valid('json')),
          200,
        );
      },
    )
    .delete(
      '/workshops/:id',
      doc({ tag, summary: 'Delete a workshop and everything in it', status: 204 }),
      async (c) => {
        await deleteWorkshop(actingDeps(deps, c), c.get('user'), c.req.param('id'));
        return c.body(null, 204);
      },
    )
    .get(
      '/workshops/:workshop_id/access_code',
      doc({
        tag,
        summary: 'Get the access code of a workshop and its join link',
        response: AccessCodeOutput,
        errors: { 403: 'Facilitators only' },
      }),
      async (c) => {
        return c.json(await getAccessCode(deps, c.get('user'), c.req.param('workshop_id')), 200);
      },
    )
    .get(
      '/workshops/:workshop_id/user_roles',
      doc({
        tag,
        summary: 'List the members of a workshop and their roles',
        response: v.array(UserRoleOutput),
        errors: { 403: 'Facilitators only' },
      }),
      async (c) => {
        return c.json(await listUserRoles(deps, c.get('user'), c.req.param('workshop_id')), 200);
      },
    )
    .put(
      '/workshops/:workshop_id/user_roles/:id',
      doc({ tag, summary: 'Change the role of a member', response: UserRoleOutput }),
      jsonBody(UpdateUserRoleInput),
      async (c) => {
        const { workshop_id, id } = c.req.param();
        return c.json(
          await updateUserRole(actingDeps(deps, c), c.get('user'), workshop_id, id, c.req.valid('json').role),
          200,
        );
      },
    )
    .delete('/workshops/:id/votes', doc({ tag, summary: 'Delete all votes of a workshop', status: 204 }), async (c) => {
      await deleteAllOf(actingDeps(deps, c), c.get('user'), c.req.param('id'), 'votes');
      return c.body(null, 204);
    })
    .delete(
      '/workshops/:id/ratings',
      doc({ tag, summary: 'Delete all ratings of a workshop', status: 204 }),
      async (c) => {
        await deleteAllOf(actingDeps(deps, c), c.get('user'), c.req.param('id'), 'ratings');
        return c.body(null, 204);
      },
    )
    .delete('/workshops/:id/items', doc({ tag, summary: 'Delete all items of a workshop', status: 204 }), async (c) => {
      await deleteAllOf(actingDeps(deps, c), c.get('user'), c.req.param('id'), 'items');
      return c.body(null, 204);
    })
    .delete(
      '/workshops/:id/comments',
      doc({ tag, summary: 'Delete all comments of a workshop', status: 204 }),
      async (c) => {
        await deleteAllOf(actingDeps(deps, c), c.get('user'), c.req.param('id'), 'comments');
        return c.body(null, 204);
      },
    )
    .delete(
      '/workshops/:id/attachments',
      doc({ tag, summary: 'Delete all attachments of a workshop', status: 204 }),
      async (c) => {
        await deleteAllOf(actingDeps(deps, c), c.get('user'), c.req.param('id'), 'attachments');
        return c.body(null, 204);
      },
    )
    .post(
      '/workshops/:id/messages',
      doc({ tag, summary: 'Send a message to the members of a workshop', status: 201, response: RecipientsOutput }),
      jsonBody(MessageInput),
      async (c) => {
        return c.json(
          await sendMessage(actingDeps(deps, c), c.get('user'), c.req.param('id'), c.req.valid('json')),
          201,
        );
      },
    );
}
