/**
 * The scopes of API tokens (docs/integrations.md#scopes) and the one table saying
 * which scope each operation needs. The token check (`modules/api-tokens/scope.ts`) and the
 * OpenAPI document (`x-required-scope`) both read it, so they cannot part.
 */
export const API_SCOPES = [
  'workshops:read',
  'workshops:write',
  'cards:read',
  'cards:write',
  'votes:write',
  'members:read',
  'members:write',
  'exports:read',
  'exports:write',
  'webhooks:read',
  'webhooks:write',
] as const;

export type ApiScope = (typeof API_SCOPES)[number];

/** The secret's first characters, so secret scanners can find a leaked one. */
export const API_TOKEN_PREFIX = 'wsk_';

/**
 * Operation (`METHOD /v1/path/{param}`, as the OpenAPI document names it) → the scope a token
 * needs. An operation missing here is out of every token's reach: a person's account, sessions,
 * joining, accepting invitations, organization settings, and tokens themselves (tokens cannot make
 * tokens).
 */
export const OPERATION_SCOPES: Readonly<Record<string, ApiScope>> = {
  'GET /v1/user/me/workshops': 'workshops:read',
  'GET /v1/user/me/organizations': 'members:read',
  'GET /v1/organizations/{id}': 'members:read',
  'GET /v1/organizations/{id}/members': 'members:read',
  'POST /v1/organizations/{id}/members': 'members:write',
  'PUT /v1/organizations/{id}/members/{member_id}': 'members:write',
  'DELETE /v1/organizations/{id}/members/{member_id}': 'members:write',
  'GET /v1/organizations/{organization_id}/workshops': 'workshops:read',
  'POST /v1/organizations/{organization_id}/workshops': 'workshops:write',
  'POST /v1/organizations/{id}/webhooks': 'webhooks:write',
  'GET /v1/organizations/{id}/webhooks': 'webhooks:read',
  'GET /v1/organizations/{id}/webhooks/{webhook_id}': 'webhooks:read',
  'PUT /v1/organizations/{id}/webhooks/{webhook_id}': 'webhooks:write',
  'DELETE /v1/organizations/{id}/webhooks/{webhook_id}': 'webhooks:write',
  'POST /v1/organizations/{id}/webhooks/{webhook_id}/rotate_secret': 'webhooks:write',
  'POST /v1/organizations/{id}/webhooks/{webhook_id}/test': 'webhooks:write',
  'GET /v1/organizations/{id}/webhooks/{webhook_id}/deliveries': 'webhooks:read',
  'POST /v1/organizations/{id}/webhooks/{webhook_id}/deliveries/{delivery_id}/retry': 'webhooks:write',

  'GET /v1/canvas': 'workshops:read',
  'GET /v1/canvas/{id}': 'workshops:read',
  'GET /v1/templates': 'workshops:read',
  'GET /v1/templates/{id}': 'workshops:read',
  'POST /v1/uploads': 'cards:write',
  'POST /v1/workshops': 'workshops:write',

  'GET /v1/workshops/{id}': 'workshops:read',
  'PUT /v1/workshops/{id}': 'workshops:write',
  'DELETE /v1/workshops/{id}': 'workshops:write',
  'GET /v1/workshops/{workshop_id}/access_code': 'members:read',
  'GET /v1/workshops/{workshop_id}/user_roles': 'members:read',
  'PUT /v1/workshops/{workshop_id}/user_roles/{id}': 'members:write',
  'DELETE /v1/workshops/{id}/votes': 'votes:write',
  'DELETE /v1/workshops/{id}/ratings': 'cards:write',
  'DELETE /v1/workshops/{id}/items': 'cards:write',
  'DELETE /v1/workshops/{id}/comments': 'cards:write',
  'DELETE /v1/workshops/{id}/attachments': 'cards:write',
  'POST /v1/workshops/{id}/messages': 'members:write',
  'GET /v1/workshops/{workshop_id}/events': 'workshops:read',
  'GET /v1/workshops/{workshop_id}/timer': 'workshops:read',
  'PUT /v1/workshops/{workshop_id}/timer': 'workshops:write',
  'GET /v1/workshops/{workshop_id}/participation': 'workshops:read',
  'GET /v1/workshops/{workshop_id}/invitations': 'members:read',
  'POST /v1/workshops/{workshop_id}/invitations': 'members:write',
  'POST /v1/workshops/{workshop_id}/invitations/{id}/resend': 'members:write',
  'DELETE /v1/workshops/{workshop_id}/invitations/{id}': 'members:write',
  'POST /v1/workshops/{workshop_id}/exports': 'exports:write',
  'GET /v1/workshops/{workshop_id}/exports': 'exports:read',
  'GET /v1/workshops/{workshop_id}/exports/{id}': 'exports:read',
  'GET /v1/workshops/{workshop_id}/exports/{id}/download': 'exports:read',
  'DELETE /v1/workshops/{workshop_id}/exports/{id}': 'exports:write',

  'GET /v1/workshops/{workshop_id}/steps': 'workshops:read',
  'POST /v1/workshops/{workshop_id}/steps': 'workshops:write',
  'GET /v1/workshops/{workshop_id}/steps/{id}': 'workshops:read',
  'PUT /v1/workshops/{workshop_id}/steps/{id}': 'workshops:write',
  'DELETE /v1/workshops/{workshop_id}/steps/{id}': 'workshops:write',
  'GET /v1/workshops/{workshop_id}/steps/{step_id}/illustration': 'workshops:read',
  'POST /v1/workshops/{workshop_id}/steps/{step_id}/illustration': 'workshops:write',
  'PUT /v1/workshops/{workshop_id}/steps/{step_id}/illustration': 'workshops:write',
  'DELETE /v1/workshops/{workshop_id}/steps/{step_id}/illustration': 'workshops:write',
  'GET /v1/workshops/{workshop_id}/criteria': 'workshops:read',
  'POST /v1/workshops/{workshop_id}/criteria': 'workshops:write',
  'GET /v1/workshops/{workshop_id}/criteria/{id}': 'workshops:read',
  'PUT /v1/workshops/{workshop_id}/criteria/{id}': 'workshops:write',
  'DELETE /v1/workshops/{workshop_id}/criteria/{id}': 'workshops:write',
  'GET /v1/workshops/{workshop_id}/sections': 'workshops:read',
  'POST /v1/workshops/{workshop_id}/sections': 'workshops:write',
  'GET /v1/workshops/{workshop_id}/sections/{id}': 'workshops:read',
  'PUT /v1/workshops/{workshop_id}/sections/{id}': 'workshops:write',
  'DELETE /v1/workshops/{workshop_id}/sections/{id}': 'workshops:write',
  'GET /v1/workshops/canvas/zones/{id}': 'workshops:read',
  'GET /v1/workshops/{workshop_id}/canvas': 'workshops:read',
  'POST /v1/workshops/{workshop_id}/canvas': 'workshops:write',
  'DELETE /v1/workshops/{workshop_id}/canvas': 'workshops:write',
  'PUT /v1/workshops/{workshop_id}/canvas/zones/{id}': 'workshops:write',

  'GET /v1/workshops/{workshop_id}/cards': 'cards:read',
  'POST /v1/workshops/{workshop_id}/cards': 'cards:write',
  'PUT /v1/workshops/{workshop_id}/cards': 'cards:write',
  'POST /v1/workshops/{workshop_id}/cards/merge': 'cards:write',
  'GET /v1/workshops/{workshop_id}/cards/{id}': 'cards:read',
  'PUT /v1/workshops/{workshop_id}/cards/{id}': 'cards:write',
  'DELETE /v1/workshops/{workshop_id}/cards/{id}': 'cards:write',
  'GET /v1/workshops/{workshop_id}/cards/{card_id}/votes': 'cards:read',
  'POST /v1/workshops/{workshop_id}/cards/{card_id}/votes': 'votes:write',
  'GET /v1/workshops/{workshop_id}/cards/{card_id}/votes/{id}': 'cards:read',
  'PUT /v1/workshops/{workshop_id}/cards/{card_id}/votes/{id}': 'votes:write',
  'DELETE /v1/workshops/{workshop_id}/cards/{card_id}/votes/{id}': 'votes:write',
  'GET /v1/workshops/{workshop_id}/cards/{card_id}/ratings': 'cards:read',
  'POST /v1/workshops/{workshop_id}/cards/{card_id}/ratings': 'cards:write',
  'GET /v1/workshops/{workshop_id}/cards/{card_id}/ratings/{id}': 'cards:read',
  'PUT /v1/workshops/{workshop_id}/cards/{card_id}/ratings/{id}': 'cards:write',
  'DELETE /v1/workshops/{workshop_id}/cards/{card_id}/ratings/{id}': 'cards:write',
  'GET /v1/workshops/{workshop_id}/cards/{card_id}/items': 'cards:read',
  'POST /v1/workshops/{workshop_id}/cards/{card_id}/items': 'cards:write',
  'GET /v1/workshops/{workshop_id}/cards/{card_id}/items/{id}': 'cards:read',
  'PUT /v1/workshops/{workshop_id}/cards/{card_id}/items/{id}': 'cards:write',
  'DELETE /v1/workshops/{workshop_id}/cards/{card_id}/items/{id}': 'cards:write',
  'GET /v1/workshops/{workshop_id}/cards/{card_id}/comments': 'cards:read',
  'POST /v1/workshops/{workshop_id}/cards/{card_id}/comments': 'cards:write',
  'GET /v1/workshops/{workshop_id}/cards/{card_id}/comments/{id}': 'cards:read',
  'DELETE /v1/workshops/{workshop_id}/cards/{card_id}/comments/{id}': 'cards:write',
  'GET /v1/workshops/{workshop_id}/cards/{card_id}/attachments': 'cards:read',
  'POST /v1/workshops/{workshop_id}/cards/{card_id}/attachments': 'cards:write',
  'GET /v1/workshops/{workshop_id}/cards/{card_id}/attachments/{id}': 'cards:read',
  'DELETE /v1/workshops/{workshop_id}/cards/{card_id}/attachments/{id}': 'cards:write',
};

/** A Hono route path (`/v1/workshops/:workshop_id`) as the OpenAPI document spells it (`{workshop_id}`). */
export const openApiPath = (routePath: string) => routePath.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/** The scope `METHOD path` needs; undefined for an operation no token reaches. */
export function scopeOf(method: string, openApiPathOf: string): ApiScope | undefined {
  return OPERATION_SCOPES[`${method.toUpperCase() === 'HEAD' ? 'GET' : method.toUpperCase()} ${openApiPathOf}`];
}

/** What an API token (`wsk_…`) is: which one, whose, and what it may do (docs/integrations.md). */
export interface ApiTokenIdentity {
  id: string;
  /** Set for an organization's token, which acts as an admin of that organization only. */
  organizationId: string | null;
  scopes: readonly ApiScope[];
  /** How the session that made a personal token was opened; null for an organization's token. */
  signInMethod: 'password' | 'oidc' | null;
}
