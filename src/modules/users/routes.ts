import { Hono } from 'hono';
import { budget } from '../../config-limits';
import type { AppDeps } from '../../deps';
import type { AppEnv } from '../../http/env';
import { limitAttempts } from '../../http/middleware/rate-limit';
import { doc } from '../../http/openapi';
import { jsonBody } from '../../http/validation';
import { readAvatar } from '../uploads/avatars';
import { readMultipart } from '../uploads/multipart';
import { toUser, UpdateMeInput, UserOutput } from './schemas';
import { resendConfirmation, setMyAvatar, updateMe } from './service';

export function usersRoutes(deps: AppDeps) {
  // Each resend mails the account's address, which nobody has confirmed yet: like signups, resends
  // are limited, so an account made with someone else's address cannot keep mailing it.
  const confirmationResends = limitAttempts(
    deps.attempts.limiter({ name: 'confirmation_user', ...budget(deps.config, 'confirmationMailsPer10Minutes') }),
    {
      key: (c) => c.get('user').id,
      counts: (c) => c.res.status === 204,
      message: (seconds) =>
        `A confirmation mail was sent a moment ago; check your inbox, or ask again in ${seconds} s.`,
    },
  );
  return new Hono<AppEnv>()
    .get('/user/me', doc({ tag: 'Current user', summary: 'The authenticated user', response: UserOutput }), (c) => {
      return c.json(toUser(c.get('user'), deps.config), 200);
    })
    .put(
      '/user/me',
      doc({ tag: 'Current user', summary: 'Change the display name', status: 204 }),
      jsonBody(UpdateMeInput),
      async (c) => {
        await updateMe(deps, c.get('user'), c.req.valid('json'));
        return c.body(null, 204);
      },
    )
    .put(
      '/user/me/avatar',
      doc({
        tag: 'Current user',
        summary: 'Set the avatar (re-encoded to at most 512×512); without an avatar part, remove it',
        response: UserOutput,
        multipart: { avatar: { description: 'An image; omit to remove the current avatar' } },
      }),
      async (c) => {
        const image = await readAvatar(await readMultipart(c, { allowEmpty: true }));
        return c.json(await setMyAvatar(deps, c.get('user').id, image), 200);
      },
    )
    .post(
      '/user/me/confirmation',
      doc({
        tag: 'Current user',
        summary: 'Send the confirmation mail again',
        status: 204,
        errors: { 409: 'conflict: the address is already confirmed', 429: 'Three resends in ten minutes already' },
      }),
      confirmationResends,
      async (c) => {
        await resendConfirmation(deps, c.get('user').id);
        return c.body(null, 204);
      },
    );
}
