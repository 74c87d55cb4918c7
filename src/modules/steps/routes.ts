import { Hono } from 'hono';
import * as v from 'valibot';
import type { AppDeps } from '../../deps';
import { actingDeps } from '../../http/acting';
import type { AppEnv } from '../../http/env';
import { doc } from '../../http/openapi';
import { jsonBody } from '../../http/validation';
import { deleteIllustration, getIllustration, setIllustration, updateIllustration } from './illustration-service';
import { CreateIllustrationInput, StepInput, UpdateIllustrationInput } from './schemas';
import { StepOutput } from '../../domain/steps';
import { IllustrationOutput } from '../../domain/steps';
import { createStep, deleteStep, getStep, listSteps, updateStep } from './service';

const tag = 'Steps';
const illustrationPath = '/workshops/:workshop_id/steps/:step_id/illustration';

export function stepsRoutes(deps: AppDeps) {
  return new Hono<AppEnv>()
    .get(
      '/workshops/:workshop_id/steps',
      doc({ tag, summary: 'List the steps in order', response: v.array(StepOutput) }),
      async (c) => {
        return c.json(await listSteps(deps, c.req.param('workshop_id'), c.get('user')), 200);
      },
    )
    .post(
      '/workshops/:workshop_id/steps',
      doc({ tag, summary: 'Add a step', status: 201, response: StepOutput }),
      jsonBody(StepInput),
      async (c) => {
        return c.json(
          await createStep(actingDeps(deps, c), c.req.param('workshop_id'), c.get('user'), c.req.valid('json')),
          201,
        );
      },
    )
    .get('/workshops/:workshop_id/steps/:id', doc({ tag, summary: 'Get a step', response: StepOutput }), async (c) => {
      return c.json(await getStep(deps, c.req.param('workshop_id'), c.get('user'), c.req.param('id')), 200);
    })
    .put(
      '/workshops/:workshop_id/steps/:id',
      doc({ tag, summary: 'Update or move a step', response: StepOutput }),
      jsonBody(StepInput),
      async (c) => {
        const { workshop_id, id } = c.req.param();
        return c.json(await updateStep(actingDeps(deps, c), workshop_id, c.get('user'), id, c.req.valid('json')), 200);
      },
    )
    .delete('/workshops/:workshop_id/steps/:id', doc({ tag, summary: 'Delete a step', status: 204 }), async (c) => {
      await deleteStep(actingDeps(deps, c), c.req.param('workshop_id'), c.get('user'), c.req.param('id'));
      return c.body(null, 204);
    })
    .get(
      illustrationPath,
      doc({ tag, summary: "Get the step's illustration", response: IllustrationOutput }),
      async (c) => {
        const { workshop_id, step_id } = c.req.param();
        return c.json(await getIllustration(deps, workshop_id, c.get('user'), step_id), 200);
      },
    )
    .post(
      illustrationPath,
      doc({
        tag,
        summary: 'Set the step illustration to an uploaded image',
        status: 201,
        response: IllustrationOutput,
        errors: {
          413: "payload_too_large: the body is above 1 MiB; workshop_storage_full: the image would take the workshop's files past UPLOAD_WORKSHOP_MB (an upload counts against the first workshop that uses it); the illustration is unchanged",
        },
      }),
      jsonBody(CreateIllustrationInput),
      async (c) => {
        const { workshop_id, step_id } = c.req.param();
        return c.json(
          await setIllustration(actingDeps(deps, c), workshop_id, c.get('user'), step_id, c.req.valid('json')),
          201,
        );
      },
    )
    .put(
      illustrationPath,
      doc({ tag, summary: 'Change how the illustration is shown', response: IllustrationOutput }),
      jsonBody(UpdateIllustrationInput),
      async (c) => {
        const { workshop_id, step_id } = c.req.param();
        return c.json(
          await updateIllustration(actingDeps(deps, c), workshop_id, c.get('user'), step_id, c.req.valid('json')),
          200,
        );
      },
    )
    .delete(illustrationPath, doc({ tag, summary: 'Remove the illustration', status: 204 }), async (c) => {
      const { workshop_id, step_id } = c.req.param();
      await deleteIllustration(actingDeps(deps, c), workshop_id, c.get('user'), step_id);
      return c.body(null, 204);
    });
}
