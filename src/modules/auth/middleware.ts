import type { MiddlewareHandler } from 'hono';
import { API_TOKEN_PREFIX, type ApiTokenIdentity } from '../../domain/api-scopes';
import { AppError } from '../../http/errors';
import type { AppEnv, UserRow } from '../../http/env';
import type { ApiTokenAuth, ResolvedSession, SessionAuth } from '../../http/session-auth';
import { msg } from '../../i18n/messages';

/**
 * Requires `Authorization: Bearer <token>` and sets `user`, `tokenHash` and `identityEpoch`; 401 otherwise.
 * With `apiTokens`, an API token (`wsk_…`) is resolved too and sets `apiToken` (its scopes are
 * checked after, by `tokenScope`); without, it is refused with 403 `insufficient_scope`.
 */
export function authenticate(deps: { auth: SessionAuth }, apiTokens?: ApiTokenAuth): MiddlewareHandler<AppEnv> {
  return async function authenticateRequest(c, next) {
    const authorization = c.req.header('authorization');
    const bearer = deps.auth.bearerToken(authorization);
    if (bearer?.startsWith(API_TOKEN_PREFIX) && !apiTokens) throw sessionNeeded();
    const session: {
      user: UserRow;
      tokenHash: string;
      epoch: number;
      apiToken?: ApiTokenIdentity;
      method?: 'password' | 'oidc';
    } | null = bearer?.startsWith(API_TOKEN_PREFIX)
      ? await apiTokens!.authenticate(bearer)
      : await deps.auth.sessionOf(authorization);
    if (!session) throw unauthenticated();
    c.set('user', session.user);
    c.set('tokenHash', session.tokenHash);
    c.set('identityEpoch', session.epoch);
    if (session.apiToken) c.set('apiToken', session.apiToken);
    if (session.method) c.set('signInMethod', session.method);
    await next();
  };
}

/**
 * The session a request to a route that needs none was sent with: null without an
 * `Authorization` header; one that is sent must work, as on any other route (401 otherwise, 403
 * `insufficient_scope` for an API token), since what the route does depends on it.
 */
export async function sessionIfSent(
  deps: { auth: SessionAuth },
  authorization: string | undefined,
): Promise<ResolvedSession | null> {
  if (authorization === undefined) return null;
  if (deps.auth.bearerToken(authorization)?.startsWith(API_TOKEN_PREFIX)) throw sessionNeeded();
  const session = await deps.auth.sessionOf(authorization);
  if (!session) throw unauthenticated();
  return session;
}

function unauthenticated(): AppError {
  return new AppError('unauthenticated', msg('error.auth.bearer_required'), {
    headers: { 'WWW-Authenticate': 'Bearer' },
  });
}

function sessionNeeded(): AppError {
  return new AppError('insufficient_scope', msg('error.auth.session_required'));
}
