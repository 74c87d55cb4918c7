import { write } from '../../db/write';
import { randomBytes } from 'node:crypto';
import type { AppDeps } from '../../deps';
import { nowIso } from '../../db/columns';
import { API_TOKEN_PREFIX, type ApiScope } from '../../domain/api-scopes';
import { AppError, notFound } from '../../http/errors';
import type { UserRow } from '../../http/env';
import { hashToken } from '../auth/crypto';
import { deletedUser } from '../users/schemas';
import { loadOrganizationAccess, requireOrganizationAdmin } from '../organizations/access';
import {
  insertApiToken,
  liveTokensOf,
  revokeApiToken,
  type ApiTokenRow,
  type TokenMaker,
  type TokenOwner,
} from './repo';
import type { ApiTokenOutput, CreateApiTokenInput, CreatedApiTokenOutput } from './schemas';
import { msg } from '../../i18n/messages';

/** Characters of the secret kept in clear (`prefix`): `wsk_` and 8 more, enough to tell tokens apart, too few to guess from. */
const SHOWN_CHARS = API_TOKEN_PREFIX.length + 8;

/** `wsk_` and 32 random bytes, base64url: secret scanners find the prefix, nobody guesses the rest. */
export function newApiTokenSecret(): string {
  return API_TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

export function toApiToken(row: ApiTokenRow, maker: TokenMaker): ApiTokenOutput {
  return {
    id: row.id,
    name: row.name,
    scopes: row.scopes as ApiScope[],
    prefix: row.prefix,
    created_by: maker.deletedAt ? deletedUser() : { id: maker.id, name: maker.name },
    created_at: row.createdAt,
    expires_at: row.expiresAt,
    last_used_at: row.lastUsedAt,
  };
}

/** Organization tokens are for its admins; members who are not get 403, anyone else 404. */
export async function ownerOfOrganizationTokens(
  deps: AppDeps,
  organizationId: string,
  user: UserRow,
): Promise<TokenOwner> {
  requireOrganizationAdmin(await loadOrganizationAccess(deps.database.db, organizationId, user));
  return { organizationId };
}

/** Personal tokens are for confirmed accounts: an unconfirmed address might not be its holder's. */
export function ownerOfPersonalTokens(user: UserRow): TokenOwner {
  if (!user.confirmedAt) throw new AppError('forbidden', msg('error.api_tokens.confirm_first'));
  return { userId: user.id };
}

/**
 * A new token, made by `user` in a session opened with `signInMethod`: a personal token keeps it,
 * so one made from a password session never reaches an organization requiring single sign-on
 * (docs/integrations.md#requiring-it-for-an-organization); an organization's token is the
 * organization's and keeps none.
 */
export async function createApiToken(
  deps: AppDeps,
  owner: TokenOwner,
  user: UserRow,
  signInMethod: 'password' | 'oidc',
  input: CreateApiTokenInput,
): Promise<CreatedApiTokenOutput> {
  const token = newApiTokenSecret();
  const row = await write(deps, (tx) =>
    insertApiToken(tx, {
      organizationId: 'organizationId' in owner ? owner.organizationId : null,
      userId: 'userId' in owner ? owner.userId : null,
      createdBy: user.id,
      signInMethod: 'userId' in owner ? signInMethod : null,
      name: input.name,
      scopes: [...new Set(input.scopes)],
      prefix: token.slice(0, SHOWN_CHARS),
      tokenHash: hashToken(token),
      expiresAt: input.expires_at ?? null,
    }),
  );
  return { ...toApiToken(row, user), token };
}

export async function listApiTokens(deps: AppDeps, owner: TokenOwner): Promise<ApiTokenOutput[]> {
  return (await liveTokensOf(deps.database.db, owner)).map(({ token, maker }) => toApiToken(token, maker));
}

/** Revoked at once on every instance: the revocation moves the identity epoch every token cache checks. */
export async function revokeApiTokenOf(deps: AppDeps, owner: TokenOwner, tokenId: string): Promise<void> {
  const revoked = await write(deps, (tx) => revokeApiToken(tx, owner, tokenId, nowIso()));
  if (!revoked) throw notFound('api_token');
}
