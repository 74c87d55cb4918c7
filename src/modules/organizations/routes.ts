import { Hono, type Context } from 'hono';
import * as v from 'valibot';
import type { AppDeps } from '../../deps';
import type { AppEnv } from '../../http/env';
import { doc } from '../../http/openapi';
import { jsonBody } from '../../http/validation';
import { readMultipart } from '../uploads/multipart';
import {
  AddMemberInput,
  ChangeMemberRoleInput,
  OrganizationInput,
  OrganizationMemberOutput,
  OrganizationUpdateInput,
} from './schemas';
import { OrganizationOutput } from '../../domain/organizations';
import {
  createOrganization,
  getOrganization,
  listMyOrganizations,
  updateOrganizationSettings,
  setOrganizationAvatar,
} from './service';
import { addMember, changeMemberRole, listMembers, removeMember, type MemberCaller } from './members';

const TAG = 'Organizations';
const ADMINS_BY_PEOPLE =
  'An API token (`members:write`) adds, changes and removes facilitators; granting, changing or removing the admin ' +
  'role takes a person who is an admin, and a token gets 403 `insufficient_scope` (docs/integrations.md#tokens-and-roles).';

/** The member routes' caller: the service tells a person from an API token (tokens manage facilitators only). */
const callerOf = (c: Context<AppEnv>): MemberCaller => ({ user: c.get('user'), apiToken: c.get('apiToken') });

export function organizationsRoutes(deps: AppDeps) {
  return new Hono<AppEnv>()
    .post(
      '/organizations',
      doc({
        tag: TAG,
        summary: 'Create an organization (you become its admin)',
        status: 201,
        response: OrganizationOutput,
      }),
      jsonBody(OrganizationInput),
      async (c) => {
        return c.json(await createOrganization(deps, c.get('user'), c.req.valid('json')), 201);
      },
    )
    .get(
      '/user/me/organizations',
      doc({ tag: TAG, summary: 'Organizations you are a member of', response: v.array(OrganizationOutput) }),
      async (c) => {
        return c.json(await listMyOrganizations(deps, c.get('user').id), 200);
      },
    )
    .get(
      '/organizations/:id',
      doc({ tag: TAG, summary: 'An organization you are a member of', response: OrganizationOutput }),
      async (c) => {
        return c.json(await getOrganization(deps, c.req.param('id'), c.get('user')), 200);
      },
    )
    .put(
      '/organizations/:id',
      doc({
        tag: TAG,
        summary: 'Rename the organization, or require single sign-on of its members (admins)',
        description:
          'Each member sent is changed, the others kept. With `sso_required: true`, sessions opened with a password get ' +
          "403 `sso_required` on the organization's routes and workshops, except this one, so an admin can always turn " +
          'it off again (docs/integrations.md#single-sign-on).',
        status: 204,
        errors: { 409: 'conflict: `sso_required` with no OpenID provider configured on this server' },
      }),
      jsonBody(OrganizationUpdateInput),
      async (c) => {
        await updateOrganizationSettings(deps, c.req.param('id'), c.get('user'), c.req.valid('json'));
        return c.body(null, 204);
      },
    )
    .put(
      '/organizations/:id/avatar',
      doc({
        tag: TAG,
        summary: 'Set the organization avatar (admins); without an avatar part, remove it',
        status: 204,
        multipart: { avatar: { description: 'An image, re-encoded to at most 512×512; omit to remove the avatar' } },
      }),
      async (c) => {
        const form = await readMultipart(c, { allowEmpty: true });
        await setOrganizationAvatar(deps, c.req.param('id'), c.get('user'), form);
        return c.body(null, 204);
      },
    )
    .get(
      '/organizations/:id/members',
      doc({
        tag: TAG,
        summary: 'Members, including invited addresses without an account yet',
        response: v.array(OrganizationMemberOutput),
      }),
      async (c) => {
        return c.json(await listMembers(deps, c.req.param('id'), c.get('user')), 200);
      },
    )
    .post(
      '/organizations/:id/members',
      doc({
        tag: TAG,
        summary: 'Add a member by e-mail (admins); an address without an account is invited',
        description: ADMINS_BY_PEOPLE,
        status: 201,
        response: OrganizationMemberOutput,
        errors: {
          403: 'forbidden: the caller is no admin; insufficient_scope: an API token adding an admin',
          429: 'The caller sent their daily budget of invitation mails',
        },
      }),
      jsonBody(AddMemberInput),
      async (c) => {
        return c.json(await addMember(deps, c.req.param('id'), callerOf(c), c.req.valid('json')), 201);
      },
    )
    .put(
      '/organizations/:id/members/:member_id',
      doc({
        tag: TAG,
        summary: "Change a member's role (admins)",
        description: ADMINS_BY_PEOPLE,
        response: OrganizationMemberOutput,
        errors: {
          403: 'forbidden: the caller is no admin; insufficient_scope: an API token granting or taking away the admin role',
          409: 'conflict: the last admin stays one',
        },
      }),
      jsonBody(ChangeMemberRoleInput),
      async (c) => {
        const member = await changeMemberRole(
          deps,
          c.req.param('id'),
          callerOf(c),
          c.req.param('member_id'),
          c.req.valid('json'),
        );
        return c.json(member, 200);
      },
    )
    .delete(
      '/organizations/:id/members/:member_id',
      doc({
        tag: TAG,
        summary: 'Remove a member (admins), or leave the organization',
        description: ADMINS_BY_PEOPLE,
        status: 204,
        errors: {
          403: 'forbidden: the caller is no admin; insufficient_scope: an API token removing an admin',
          409: 'conflict: the last admin cannot go',
        },
      }),
      async (c) => {
        await removeMember(deps, c.req.param('id'), callerOf(c), c.req.param('member_id'));
        return c.body(null, 204);
      },
    );
}
