import { Hono } from 'hono';
import * as v from 'valibot';
import type { AppDeps } from '../../deps';
import { actingDeps } from '../../http/acting';
import type { AppEnv } from '../../http/env';
import { doc } from '../../http/openapi';
import { jsonBody } from '../../http/validation';
import { CreateSectionInput, UpdateSectionInput } from './schemas';
import { SectionOutput } from '../../domain/sections';
import { createSection, deleteSection, getSection, listSections, updateSection } from './service';

const tag = 'Sections';

export function sectionsRoutes(deps: AppDeps) {
  return new Hono<AppEnv>()
    .get(
      '/workshops/:workshop_id/sections',
      doc({ tag, summary: 'List the sections of a workshop', response: v.array(SectionOutput) }),
      async (c) => {
        return c.json(await listSections(deps, c.get('user'), c.req.param('workshop_id')), 200);
      },
    )
    .post(
      '/workshops/:workshop_id/sections',
      doc({ tag, summary: 'Add a section', status: 201, response: SectionOutput }),
      jsonBody(CreateSectionInput),
      async (c) => {
        return c.json(
          await createSection(actingDeps(deps, c), c.get('user'), c.req.param('workshop_id'), c.req.valid('json')),
          201,
        );
      },
    )
    .get(
      '/workshops/:workshop_id/sections/:id',
      doc({ tag, summary: 'Get a section', response: SectionOutput }),
      async (c) => {
        const { workshop_id, id } = c.req.param();
        return c.json(await getSection(deps, c.get('user'), workshop_id, id), 200);
      },
    )
    .put(
      '/workshops/:workshop_id/sections/:id',
      doc({ tag, summary: 'Rename a section', response: SectionOutput }),
      jsonBody(UpdateSectionInput),
      async (c) => {
        const { workshop_id, id } = c.req.param();
        return c.json(
          await updateSection(actingDeps(deps, c), c.get('user'), workshop_id, id, c.req.valid('json')),
          200,
        );
      },
    )
    .delete(
      '/workshops/:workshop_id/sections/:id',
      doc({ tag, summary: 'Delete a section and its items', status: 204 }),
      async (c) => {
        const { workshop_id, id } = c.req.param();
        await deleteSection(actingDeps(deps, c), c.get('user'), workshop_id, id);
        return c.body(null, 204);
      },
    );
}
