import type { MiddlewareHandler } from 'hono';
import { AppError } from '../../http/errors';
import type { AppEnv } from '../../http/env';
import { bearerToken, tokenAuthenticator, type AuthDeps } from './service';

/** Requires `Authorization: Bearer <token>` and sets `user` and `tokenHash`; 401 otherwise. */
export function authenticate(deps: AuthDeps): MiddlewareHandler<AppEnv> {
  const resolve = tokenAuthenticator(deps);
  return async function authenticateRequest(c, next) {
    const token = bearerToken(c.req.header('authorization'));
    const session = token ? resolve(token) : null;
    if (!session) {
      throw new AppError('unauthenticated', 'A valid bearer token is required.', {
        headers: { 'WWW-Authenticate': 'Bearer' },
      });
    }
    c.set('user', session.user);
    c.set('tokenHash', session.tokenHash);
    await next();
  };
}
