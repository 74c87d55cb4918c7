import { Hono } from 'hono';
import type { AppDeps } from '../../deps';
import { actingDeps } from '../../http/acting';
import type { AppEnv } from '../../http/env';
import { doc } from '../../http/openapi';
import { jsonBody } from '../../http/validation';
import { TimerInput } from './schemas';
import { TimerOutput } from '../../domain/timer';
import { changeTimer, getTimer } from './service';

const tag = 'Timer';
const path = '/workshops/:workshop_id/timer';

export function timerRoutes(deps: AppDeps) {
  return new Hono<AppEnv>()
    .get(
      path,
      doc({ tag, summary: "The workshop's countdown timer, with the server's clock", response: TimerOutput }),
      async (c) => {
        return c.json(await getTimer(deps, c.get('user'), c.req.param('workshop_id')), 200);
      },
    )
    .put(
      path,
      doc({
        tag,
        summary: 'Start (duration_s), pause, resume or stop the timer, or add time (add_s)',
        response: TimerOutput,
        errors: { 409: 'conflict: the timer cannot do that in its state (pause a stopped timer); workshop_archived' },
      }),
      jsonBody(TimerInput),
      async (c) =>
        c.json(
          await changeTimer(actingDeps(deps, c), c.get('user'), c.req.param('workshop_id'), c.req.valid('json')),
          200,
        ),
    );
}
