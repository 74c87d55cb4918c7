import { Hono } from 'hono';
import type { AppEnv } from '../../http/env';
import { doc } from '../../http/openapi';
import { jsonBody } from '../../http/validation';
import type { Limiters } from '../../lib/limiters';
import { authenticate } from './middleware';
import { ConfirmInput, LoginInput, SessionOutput, SignupInput } from './schemas';
import { confirmEmail, login, logout, signup, type AuthDeps, type SessionAuth } from './service';
import { loginThrottles, signupThrottle } from './throttle';

export function authRoutes(deps: AuthDeps & { attempts: Limiters; auth: SessionAuth }) {
  const [loginsPerAddress, loginsPerAccount] = loginThrottles(deps);
  return new Hono<AppEnv>()
    .post('/signup', doc({ tag: 'Auth', summary: 'Create an account', status: 201, response: SessionOutput, auth: false, errors: { 409: 'email_taken: an account with this e-mail exists', 429: 'Too many signups from this address' } }), signupThrottle(deps), jsonBody(SignupInput), async (c) => {
      return c.json(await signup(deps, c.req.valid('json')), 201);
    })
    .post('/login', doc({ tag: 'Auth', summary: 'Log in', response: SessionOutput, auth: false, errors: { 401: 'invalid_credentials: wrong e-mail or password', 429: 'Too many failed logins for this account or address' } }), loginsPerAddress, loginsPerAccount, jsonBody(LoginInput), async (c) => {
      return c.json(await login(deps, c.req.valid('json')), 200);
    })
    .post('/logout', doc({ tag: 'Auth', summary: 'Revoke the current token', status: 204 }), authenticate(deps), async (c) => {
      await logout(deps, c.get('user'), c.get('tokenHash'));
      return c.body(null, 204);
    })
    .post('/confirm', doc({ tag: 'Auth', summary: 'Confirm an e-mail address with the mailed token', status: 204, auth: false }), jsonBody(ConfirmInput), async (c) => {
      await confirmEmail(deps, c.req.valid('json').token);
      return c.body(null, 204);
    });
}
