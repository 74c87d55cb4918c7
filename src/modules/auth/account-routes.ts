import { Hono } from 'hono';
import type { AppEnv } from '../../http/env';
import { doc } from '../../http/openapi';
import { jsonBody } from '../../http/validation';
import type { Limiters } from '../../lib/limiters';
import { changePassword, requestAddressChange } from './account';
import { AddressChangeInput, PasswordChangeInput, SessionListOutput } from './schemas';
import type { AuthDeps } from './deps';
import { endOtherSessions, endSession, listSessions } from './sessions';
import { addressChangeThrottle, passwordCheckThrottles } from './throttle';

const tag = 'Current user';
/** Every route here is a person's own: guests (`guestScope`) and API tokens (`tokenScope`) are refused before. */
const refused = {
  401: 'invalid_credentials: the password is wrong (counted as a failed login)',
  403: 'forbidden: a guest, or an account without a password (set one through a reset); insufficient_scope: an API token',
  429: 'Too many wrong passwords for this account or address',
};

/**
 * The signed-in person's password, address and sessions (docs/api.md#an-accounts-life): mounted
 * with the authenticated routes, beside the current user's own (`app.ts`).
 */
export function accountRoutes(deps: AuthDeps & { attempts: Limiters }) {
  const [wrongPasswordsPerAddress, wrongPasswordsPerAccount] = passwordCheckThrottles(deps);
  return new Hono<AppEnv>()
    .put(
      '/user/me/password',
      doc({
        tag,
        summary: 'Change the password; every other session of the account ends',
        status: 204,
        errors: refused,
      }),
      wrongPasswordsPerAddress,
      wrongPasswordsPerAccount,
      jsonBody(PasswordChangeInput),
      async (c) => {
        await changePassword(deps, c.get('user'), c.get('tokenHash'), c.req.valid('json'));
        return c.body(null, 204);
      },
    )
    .put(
      '/user/me/email',
      doc({
        tag,
        summary: 'Change the e-mail address: the new address gets a link to confirm it with, the old one a notice',
        description:
          'The address changes when the link is used (`POST /v1/auth/confirm`), which proves it: every other way into ' +
          'the account ends then (docs/api.md#an-address-is-proven-once).',
        status: 202,
        errors: {
          ...refused,
          409: 'email_taken: an account with this e-mail exists',
          429: 'Too many wrong passwords, or address changes asked for a moment ago',
        },
      }),
      addressChangeThrottle(deps),
      wrongPasswordsPerAddress,
      wrongPasswordsPerAccount,
      jsonBody(AddressChangeInput),
      async (c) => {
        await requestAddressChange(deps, c.get('user'), c.req.valid('json'));
        return c.body(null, 202);
      },
    )
    .get(
      '/user/me/sessions',
      doc({ tag, summary: 'Where you are signed in: your sessions, the newest first', response: SessionListOutput }),
      async (c) => c.json(await listSessions(deps, c.get('user').id, c.get('tokenHash')), 200),
    )
    .delete(
      '/user/me/sessions/:id',
      doc({ tag, summary: 'Sign one session out, at once and on every live connection', status: 204 }),
      async (c) => {
        await endSession(deps, c.get('user').id, c.req.param('id'));
        return c.body(null, 204);
      },
    )
    .delete(
      '/user/me/sessions',
      doc({ tag, summary: 'Sign out every session but this one', status: 204 }),
      async (c) => {
        await endOtherSessions(deps, c.get('user').id, c.get('tokenHash'));
        return c.body(null, 204);
      },
    );
}
