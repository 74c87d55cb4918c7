import { Hono } from 'hono';
import * as v from 'valibot';
import type { AppDeps } from '../../deps';
import type { AppEnv } from '../../http/env';
import { notFound } from '../../http/errors';
import { requestLanguage } from '../../http/language';
import { doc } from '../../http/openapi';
import { templatesIn } from './catalog';
import { TemplateOutput, TemplateSummaryOutput, toTemplate, toTemplateSummary } from './schemas';

const IN_LANGUAGE =
  "Its words in the request's `Accept-Language` (English when none of its languages is offered); a workshop made from a template takes them in the workshop's language.";

export function templatesRoutes(deps: AppDeps) {
  void deps;
  return new Hono<AppEnv>()
    .get(
      '/templates',
      doc({
        tag: 'Templates',
        summary: 'List the workshop templates',
        description: IN_LANGUAGE,
        response: v.array(TemplateSummaryOutput),
      }),
      (c) => {
        return c.json([...templatesIn(requestLanguage(c)).values()].map(toTemplateSummary), 200);
      },
    )
    .get(
      '/templates/:id',
      doc({
        tag: 'Templates',
        summary: 'Get a template with its steps',
        description: IN_LANGUAGE,
        response: TemplateOutput,
      }),
      (c) => {
        const template = templatesIn(requestLanguage(c)).get(c.req.param('id'));
        if (!template) throw notFound('Template');
        return c.json(toTemplate(template), 200);
      },
    );
}
