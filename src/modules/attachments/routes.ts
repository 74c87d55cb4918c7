import { Hono } from 'hono';
import * as v from 'valibot';
import type { AppDeps } from '../../deps';
import { actingDeps } from '../../http/acting';
import type { AppEnv } from '../../http/env';
import { doc } from '../../http/openapi';
import { jsonBody } from '../../http/validation';
import { cardRef } from '../../http/refs';
import { CreateAttachmentInput } from './schemas';
import { AttachmentOutput } from '../../domain/attachments';
import { attachFile, getAttachment, listAttachments, removeAttachment } from './service';

const tag = 'Attachments';
const path = '/workshops/:workshop_id/cards/:card_id/attachments';

export function attachmentsRoutes(deps: AppDeps) {
  return new Hono<AppEnv>()
    .get(path, doc({ tag, summary: "List a card's attachments", response: v.array(AttachmentOutput) }), async (c) => {
      return c.json(await listAttachments(deps, cardRef(c)), 200);
    })
    .post(
      path,
      doc({
        tag,
        summary: 'Attach a file uploaded with POST /v1/uploads to a card',
        status: 201,
        response: AttachmentOutput,
        errors: {
          413: "payload_too_large: the body is above 1 MiB; workshop_storage_full: the upload would take the workshop's files past UPLOAD_WORKSHOP_MB (an upload counts against the first workshop that uses it); nothing was attached",
        },
      }),
      jsonBody(CreateAttachmentInput),
      async (c) => c.json(await attachFile(actingDeps(deps, c), cardRef(c), c.req.valid('json')), 201),
    )
    .get(`${path}/:id`, doc({ tag, summary: 'Get an attachment', response: AttachmentOutput }), async (c) => {
      return c.json(await getAttachment(deps, cardRef(c), c.req.param('id')), 200);
    })
    .delete(`${path}/:id`, doc({ tag, summary: 'Remove an attachment from a card', status: 204 }), async (c) => {
      await removeAttachment(actingDeps(deps, c), cardRef(c), c.req.param('id'));
      return c.body(null, 204);
    });
}
