import { Hono } from 'hono';
import type { AppDeps } from '../../deps';
import type { AppEnv } from '../../http/env';
import { doc } from '../../http/openapi';
import { jsonBody } from '../../http/validation';
import { readAvatar } from '../uploads/avatars';
import { readMultipart } from '../uploads/multipart';
import { toUser, UpdateMeInput, UserOutput } from './schemas';
import { setMyAvatar, updateMe } from './service';

export function usersRoutes(deps: AppDeps) {
  return new Hono<AppEnv>()
    .get('/user/me', doc({ tag: 'Current user', summary: 'The authenticated user', response: UserOutput }), (c) => {
      return c.json(toUser(c.get('user'), deps.config), 200);
    })
    .put(
      '/user/me',
      doc({ tag: 'Current user', summary: 'Change the display name, the locale or the time zone', status: 204 }),
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
    );
}
