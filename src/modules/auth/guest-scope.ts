import type { MiddlewareHandler } from 'hono';
import { forbidden } from '../../http/errors';
import type { AppEnv } from '../../http/env';
import { msg } from '../../i18n/messages';

/**
 * What a guest's token reaches (docs/api.md#guests): their workshop's routes (a workshop they are not a
 * member of answers 404 there, as for anyone), their own account (read, rename), notifications,
 * and uploads, which is how a file becomes an attachment on a card (`POST /v1/uploads`, then the
 * attachments route with its key). Logout is in the auth routes, which need no such check.
 */
const GUEST_ROUTES: ReadonlyArray<{ methods: ReadonlySet<string>; path: RegExp }> = [
  { methods: new Set(['GET', 'HEAD', 'PUT']), path: /^\/v1\/user\/me\/?$/ },
  { methods: new Set(['GET', 'HEAD', 'PUT']), path: /^\/v1\/user\/me\/notifications(\/|$)/ },
  { methods: new Set(['POST']), path: /^\/v1\/uploads\/?$/ },
  // Every route inside a workshop, and the canvas zones read by id; not joining another one.
  {
    methods: new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']),
    path: /^\/v1\/workshops\/(?!join(\/|$))[^/]+(\/|$)/,
  },
];

/**
 * Refuses a guest's token on every authenticated route outside `GUEST_ROUTES` with 403 `forbidden`
 * (creating workshops or organizations, joining another workshop, accepting invitations, avatars). Runs after `authenticate`.
 */
export function guestScope(): MiddlewareHandler<AppEnv> {
  return async function limitGuests(c, next) {
    if (!c.get('user').guest) return next();
    const { method, path } = c.req;
    if (GUEST_ROUTES.some((route) => route.methods.has(method) && route.path.test(path))) return next();
    throw forbidden(msg('error.auth.guest_scope'));
  };
}
