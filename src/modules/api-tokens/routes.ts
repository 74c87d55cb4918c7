import { Hono, type Context } from 'hono';
import * as v from 'valibot';
import type { AppDeps } from '../../deps';
import type { AppEnv } from '../../http/env';
import { doc } from '../../http/openapi';
import { jsonBody } from '../../http/validation';
import { ApiTokenOutput, CreateApiTokenInput, CreatedApiTokenOutput } from './schemas';
import {
  createApiToken,
  listApiTokens,
  ownerOfOrganizationTokens,
  ownerOfPersonalTokens,
  revokeApiTokenOf,
} from './service';

const tag = 'API tokens';
const created = 'The token, with its secret (`token`, `wsk_…`): shown in this answer only';

/** Organization tokens (its admins) and personal tokens (confirmed accounts); no API token reaches these. */
/** How the session making a token was opened: tokens cannot make tokens (`tokenScope`), so every caller here is a session. */
function sessionMethod(c: Context<AppEnv>): 'password' | 'oidc' {
  return c.get('signInMethod') ?? 'password';
}

export function apiTokensRoutes(deps: AppDeps) {
  return new Hono<AppEnv>()
    .post(
      '/organizations/:id/api_tokens',
      doc({
        tag,
        summary: 'Make an organization token (admins)',
        description: created,
        status: 201,
        response: CreatedApiTokenOutput,
      }),
      jsonBody(CreateApiTokenInput),
      async (c) => {
        const owner = await ownerOfOrganizationTokens(deps, c.req.param('id'), c.get('user'));
        return c.json(await createApiToken(deps, owner, c.get('user'), sessionMethod(c), c.req.valid('json')), 201);
      },
    )
    .get(
      '/organizations/:id/api_tokens',
      doc({ tag, summary: "The organization's tokens (admins), without secrets", response: v.array(ApiTokenOutput) }),
      async (c) => {
        const owner = await ownerOfOrganizationTokens(deps, c.req.param('id'), c.get('user'));
        return c.json(await listApiTokens(deps, owner), 200);
      },
    )
    .delete(
      '/organizations/:id/api_tokens/:token_id',
      doc({ tag, summary: 'Revoke an organization token (admins): it stops working at once', status: 204 }),
      async (c) => {
        const owner = await ownerOfOrganizationTokens(deps, c.req.param('id'), c.get('user'));
        await revokeApiTokenOf(deps, owner, c.req.param('token_id'));
        return c.body(null, 204);
      },
    )
    .post(
      '/user/me/api_tokens',
      doc({
        tag,
        summary: 'Make a personal token (confirmed accounts)',
        description: created,
        status: 201,
        response: CreatedApiTokenOutput,
      }),
      jsonBody(CreateApiTokenInput),
      async (c) => {
        const owner = ownerOfPersonalTokens(c.get('user'));
        return c.json(await createApiToken(deps, owner, c.get('user'), sessionMethod(c), c.req.valid('json')), 201);
      },
    )
    .get(
      '/user/me/api_tokens',
      doc({ tag, summary: 'Your personal tokens, without secrets', response: v.array(ApiTokenOutput) }),
      async (c) => c.json(await listApiTokens(deps, { userId: c.get('user').id }), 200),
    )
    .delete(
      '/user/me/api_tokens/:token_id',
      doc({ tag, summary: 'Revoke a personal token: it stops working at once', status: 204 }),
      async (c) => {
        await revokeApiTokenOf(deps, { userId: c.get('user').id }, c.req.param('token_id'));
        return c.body(null, 204);
      },
    );
}
