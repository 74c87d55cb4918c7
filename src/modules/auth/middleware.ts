import type { MiddlewareHandler } from 'hono';
import { API_TOKEN_PREFIX, type ApiTokenIdentity } from '../../domain/api-scopes';
import { AppError } from '../../http/errors';
import type { AppEnv, UserRow } from '../../http/env';
import type { ApiTokenAuth, SessionAuth } from '../../http/session-auth';

/**
 * Requires `Authorization: Bearer <token>` and sets `user`, `tokenHash` and `identityEpoch`; 401 otherwise.
 * With `apiTokens`, an API token (`wsk_…`) is resolved too and sets `apiToken` (its scopes are
 * checked after, by `tokenScope`); without, it is refused with 403 `insufficient_scope`.
 */
export function authenticate(deps: { auth: SessionAuth }, apiTokens?: ApiTokenAuth): MiddlewareHandler<AppEnv> {
  return async function authenticateRequest(c, next) {
    const authorization = c.req.header('authorization');
    const bearer = deps.auth.bearerToken(authorization);
    if (bearer?.startsWith(API_TOKEN_PREFIX) && !apiTokens)
      throw new AppError('insufficient_scope', 'API tokens cannot use this route; it needs a session.');
    const session: {
      user: UserRow;
      tokenHash: string;
      epoch: number;
      apiToken?: ApiTokenIdentity;
      method?: 'password' | 'oidc';
    } | null = bearer?.startsWith(API_TOKEN_PREFIX)
      ? await apiTokens!.authenticate(bearer)
      : await deps.auth.sessionOf(authorization);
    if (!session) {
      throw new AppError('unauthenticated', 'A valid bearer token is required.', {
        headers: { 'WWW-Authenticate': 'Bearer' },
      });
    }
    c.set('user', session.user);
    c.set('tokenHash', session.tokenHash);
    c.set('identityEpoch', session.epoch);
    if (session.apiToken) c.set('apiToken', session.apiToken);
    if (session.method) c.set('signInMethod', session.method);
    await next();
  };
}
