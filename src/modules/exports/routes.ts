import { Hono } from 'hono';
import * as v from 'valibot';
import type { AppDeps } from '../../deps';
import { actingDeps } from '../../http/acting';
import type { AppEnv } from '../../http/env';
import { doc } from '../../http/openapi';
import { jsonBody } from '../../http/validation';
import { CreateExportInput, ExportOutput } from './schemas';
import { createExport, deleteExport, downloadExport, getExport, listExports } from './service';

const tag = 'Exports';
const path = '/workshops/:workshop_id/exports';
const facilitatorsOnly = { 403: 'Facilitators only' };

export function exportsRoutes(deps: AppDeps) {
  return new Hono<AppEnv>()
    .post(
      path,
      doc({
        tag,
        summary: 'Export the workshop (pdf, xlsx, docx, csv or native); the file is made in the background',
        status: 201,
        response: ExportOutput,
        // The caps are settings (0 turns one off): the text names them rather than today's numbers.
        errors: {
          ...facilitatorsOnly,
          409: 'workshop_archived, or the cap on pending exports of the workshop (PENDING_EXPORTS_PER_WORKSHOP) or of the caller (PENDING_EXPORTS_PER_USER) reached',
        },
      }),
      jsonBody(CreateExportInput),
      async (c) =>
        c.json(
          await createExport(actingDeps(deps, c), c.get('user'), c.req.param('workshop_id'), c.req.valid('json')),
          201,
        ),
    )
    .get(
      path,
      doc({
        tag,
        summary: 'List the exports of a workshop, newest first',
        response: v.array(ExportOutput),
        errors: facilitatorsOnly,
      }),
      async (c) => {
        return c.json(await listExports(deps, c.get('user'), c.req.param('workshop_id')), 200);
      },
    )
    .get(
      `${path}/:id`,
      doc({ tag, summary: 'Get an export', response: ExportOutput, errors: facilitatorsOnly }),
      async (c) => {
        return c.json(await getExport(deps, c.get('user'), c.req.param('workshop_id'), c.req.param('id')), 200);
      },
    )
    .get(
      `${path}/:id/download`,
      doc({
        tag,
        summary: 'Download the exported file',
        produces: [
          'application/pdf',
          'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
          'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
          'text/csv',
          'application/json',
        ],
        errors: {
          ...facilitatorsOnly,
          409: 'The export is still pending, or it failed',
          503: 'The file storage is unavailable',
        },
      }),
      async (c) => {
        const { body, headers } = await downloadExport(
          deps,
          c.get('user'),
          c.req.param('workshop_id'),
          c.req.param('id'),
        );
        return c.body(body, 200, headers);
      },
    )
    .delete(
      `${path}/:id`,
      doc({
        tag,
        summary: 'Delete an export and its file',
        status: 204,
        errors: { ...facilitatorsOnly, 409: 'workshop_archived' },
      }),
      async (c) => {
        await deleteExport(actingDeps(deps, c), c.get('user'), c.req.param('workshop_id'), c.req.param('id'));
        return c.body(null, 204);
      },
    );
}
