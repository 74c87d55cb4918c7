import { Hono } from 'hono';
import * as v from 'valibot';
import type { AppDeps } from '../../deps';
import type { AppEnv } from '../../http/env';
import { notFound } from '../../http/errors';
import { doc } from '../../http/openapi';
import { TEMPLATES } from './catalog';
import { TemplateOutput, TemplateSummaryOutput, toTemplate, toTemplateSummary } from './schemas';

export function templatesRoutes(deps: AppDeps) {
  void deps;
  const catalog = TEMPLATES;
  const summaries = [...catalog.values()].map(toTemplateSummary);
  return new Hono<AppEnv>()
    .get(
      '/templates',
      doc({ tag: 'Templates', summary: 'List the workshop templates', response: v.array(TemplateSummaryOutput) }),
      (c) => {
        return c.json(summaries, 200);
      },
    )
    .get(
      '/templates/:id',
      doc({ tag: 'Templates', summary: 'Get a template with its steps', response: TemplateOutput }),
      (c) => {
        const template = catalog.get(c.req.param('id'));
        if (!template) throw notFound('Template');
        return c.json(toTemplate(template), 200);
      },
    );
}
