import type { MiddlewareHandler } from 'hono';
import { AppError } from '../../http/errors';
import type { AppEnv } from '../../http/env';
import type { SessionAuth } from '../../http/session-auth';

/** Requires `Authorization: Bearer <token>` and sets `user`, `tokenHash` and `identityEpoch`; 401 otherwise. */
export function authenticate(deps: { auth: SessionAuth }): MiddlewareHandler<AppEnv> {
  return async function authenticateRequest(c, next) {
    const session = await deps.auth.sessionOf(c.req.header('authorization'));
    if (!session) {
      throw new AppError('unauthenticated', 'A valid bearer token is required.', {
        headers: { 'WWW-Authenticate': 'Bearer' },
      });
    }
    c.set('user', session.user);
    c.set('tokenHash', session.tokenHash);
    c.set('identityEpoch', session.epoch);
    await next();
  };
}
