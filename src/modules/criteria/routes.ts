import { Hono } from 'hono';
import * as v from 'valibot';
import type { AppDeps } from '../../deps';
import { actingDeps } from '../../http/acting';
import type { AppEnv } from '../../http/env';
import { doc } from '../../http/openapi';
import { jsonBody } from '../../http/validation';
import { CreateCriterionInput, UpdateCriterionInput } from './schemas';
import { CriterionOutput } from '../../domain/criteria';
import { createCriterion, deleteCriterion, getCriterion, listCriteria, updateCriterion } from './service';

const tag = 'Criteria';

export function criteriaRoutes(deps: AppDeps) {
  return new Hono<AppEnv>()
    .get(
      '/workshops/:workshop_id/criteria',
      doc({ tag, summary: 'List the criteria of a workshop', response: v.array(CriterionOutput) }),
      async (c) => {
        return c.json(await listCriteria(deps, c.get('user'), c.req.param('workshop_id')), 200);
      },
    )
    .post(
      '/workshops/:workshop_id/criteria',
      doc({ tag, summary: 'Add a criterion', status: 201, response: CriterionOutput }),
      jsonBody(CreateCriterionInput),
      async (c) => {
        return c.json(
          await createCriterion(actingDeps(deps, c), c.get('user'), c.req.param('workshop_id'), c.req.valid('json')),
          201,
        );
      },
    )
    .get(
      '/workshops/:workshop_id/criteria/:id',
      doc({ tag, summary: 'Get a criterion', response: CriterionOutput }),
      async (c) => {
        const { workshop_id, id } = c.req.param();
        return c.json(await getCriterion(deps, c.get('user'), workshop_id, id), 200);
      },
    )
    .put(
      '/workshops/:workshop_id/criteria/:id',
      doc({ tag, summary: 'Rename a criterion', response: CriterionOutput }),
      jsonBody(UpdateCriterionInput),
      async (c) => {
        const { workshop_id, id } = c.req.param();
        return c.json(
          await updateCriterion(actingDeps(deps, c), c.get('user'), workshop_id, id, c.req.valid('json')),
          200,
        );
      },
    )
    .delete(
      '/workshops/:workshop_id/criteria/:id',
      doc({ tag, summary: 'Delete a criterion and its ratings', status: 204 }),
      async (c) => {
        const { workshop_id, id } = c.req.param();
        await deleteCriterion(actingDeps(deps, c), c.get('user'), workshop_id, id);
        return c.body(null, 204);
      },
    );
}
