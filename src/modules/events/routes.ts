import { Hono } from 'hono';
import * as v from 'valibot';
import type { AppDeps } from '../../deps';
import type { AppEnv } from '../../http/env';
import { doc } from '../../http/openapi';
import { pageHeaders, pageOf } from '../../http/pagination';
import { queryParams } from '../../http/validation';
import { listEvents } from './log';
import { EventOutput, EventsQuery } from './schemas';

export function eventsRoutes(deps: AppDeps) {
  return new Hono<AppEnv>().get(
    '/workshops/:workshop_id/events',
    doc({
      tag: 'Events',
      summary: "The workshop's event log, newest first (paged)",
      response: v.array(EventOutput),
      paged: true,
    }),
    queryParams(EventsQuery),
    async (c) => {
      const query = c.req.valid('query');
      const page = pageOf(query);
      const { items, total } = await listEvents(deps, c.req.param('workshop_id'), c.get('user'), {
        filters: query.filters,
        page,
      });
      return c.json(items, 200, pageHeaders(deps.config.publicUrl, c.req.url, page, total));
    },
  );
}
