import { Hono } from 'hono';
import type { AppDeps } from '../../deps';
import type { AppEnv } from '../../http/env';
import { doc } from '../../http/openapi';
import { ParticipationOutput } from './schemas';
import { getParticipation } from './service';

export function participationRoutes(deps: AppDeps) {
  return new Hono<AppEnv>().get(
    '/workshops/:workshop_id/participation',
    doc({
      tag: 'Participation',
      summary: 'How many participants have voted and rated (names for facilitators)',
      response: ParticipationOutput,
    }),
    async (c) => c.json(await getParticipation(deps, c.get('user'), c.req.param('workshop_id')), 200),
  );
}
