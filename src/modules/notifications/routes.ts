import { Hono } from 'hono';
import * as v from 'valibot';
import type { AppDeps } from '../../deps';
import type { AppEnv } from '../../http/env';
import { doc } from '../../http/openapi';
import { pageHeaders, pageOf } from '../../http/pagination';
import { jsonBody, queryParams } from '../../http/validation';
import { MarkAllReadInput, MarkReadInput, NotificationOutput, NotificationsQuery } from './schemas';
import { listNotifications, markAllRead, markRead } from './service';

const tag = 'Notifications';

export function notificationsRoutes(deps: AppDeps) {
  return (
    new Hono<AppEnv>()
      .get(
        '/user/me/notifications',
        doc({
          tag,
          summary: "The caller's notifications, newest first (paged)",
          response: v.array(NotificationOutput),
          paged: true,
        }),
        queryParams(NotificationsQuery),
        async (c) => {
          const page = pageOf(c.req.valid('query'));
          const { items, total } = await listNotifications(deps, c.get('user').id, page);
          return c.json(items, 200, pageHeaders(deps.config.publicUrl, c.req.url, page, total));
        },
      )
      // Registered before `/:id`, which would otherwise take "read" for a notification id.
      .put(
        '/user/me/notifications/read',
        doc({
          tag,
          summary: 'Mark all notifications, or those up to one, read',
          status: 204,
          errors: { 404: 'The notification named by `up_to` is not the caller’s' },
        }),
        jsonBody(MarkAllReadInput),
        async (c) => {
          await markAllRead(deps, c.get('user').id, c.req.valid('json').last_notification_id);
          return c.body(null, 204);
        },
      )
      .put(
        '/user/me/notifications/:id',
        doc({ tag, summary: 'Mark a notification read or unread', status: 204 }),
        jsonBody(MarkReadInput),
        async (c) => {
          await markRead(deps, c.get('user').id, c.req.param('id'), c.req.valid('json').read);
          return c.body(null, 204);
        },
      )
  );
}
