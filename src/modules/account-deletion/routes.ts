import { Hono } from 'hono';
import type { AppDeps } from '../../deps';
import type { AppEnv } from '../../http/env';
import { doc } from '../../http/openapi';
import { jsonBody } from '../../http/validation';
import { passwordCheckThrottles } from '../auth/throttle';
import { AccountDeletionInput, AccountDeletionPreview } from './schemas';
import { deleteAccount, previewDeletion } from './service';

const tag = 'Current user';

/**
 * Deleting one's account (docs/api.md#an-accounts-life), and what it would do. Guests
 * (`guestScope`) and API tokens (`tokenScope`) are refused before these run.
 */
export function accountDeletionRoutes(deps: AppDeps) {
  const [wrongPasswordsPerAddress, wrongPasswordsPerAccount] = passwordCheckThrottles(deps);
  return new Hono<AppEnv>()
    .get(
      '/user/me/deletion',
      doc({
        tag,
        summary: 'What deleting the account would do now: workshops deleted or passed on, organizations left',
        response: AccountDeletionPreview,
      }),
      async (c) => c.json(await previewDeletion(deps, c.get('user').id, c.get('tokenHash')), 200),
    )
    .delete(
      '/user/me',
      doc({
        tag,
        summary: 'Delete the account: what it wrote in others’ workshops stays, shown as a deleted user',
        description:
          'Its sessions end at once on every instance and live connection. See `GET /v1/user/me/deletion` for what ' +
          'goes, what passes on and what stays (docs/api.md#an-accounts-life).',
        status: 204,
        errors: {
          400: 'invalid_request: an account with a password sent none',
          401: 'invalid_credentials: the password is wrong (counted as a failed login)',
          403: 'reauthentication_required: an account without a password not signed in within 10 minutes; forbidden: a guest; insufficient_scope: an API token',
          409: 'last_admin: the only admin of an organization with other members or workshops',
          429: 'Too many wrong passwords for this account or address',
        },
      }),
      wrongPasswordsPerAddress,
      wrongPasswordsPerAccount,
      jsonBody(AccountDeletionInput),
      async (c) => {
        await deleteAccount(deps, c.get('user'), c.get('tokenHash'), c.req.valid('json'));
        return c.body(null, 204);
      },
    );
}
