import * as v from 'valibot';
import { AttachmentOutput } from '../../domain/attachments';
import type { Config } from '../../config';
import type { Schema } from '../../db/database';
import { optionalText, requiredText } from '../../http/validation';
import { publicFileUrl } from '../uploads/file-links';
import { said } from '../../i18n/valibot';

export type AttachmentRow = Schema['attachments']['$inferSelect'];

const segment = v.pipe(v.string(), v.minLength(1, said('error.validation.empty')), v.maxLength(64));

/** References a file uploaded with POST /v1/uploads: the `key` and `container` that call answered. */
export const CreateAttachmentInput = v.object({
  name: v.optional(requiredText(255)),
  blob: v.object({
    url: v.optional(optionalText(2048)),
    key: segment,
    container: segment,
    mimetype: v.optional(optionalText(255)),
  }),
});
export type CreateAttachmentInput = v.InferOutput<typeof CreateAttachmentInput>;

export function toAttachment(row: AttachmentRow, config: Pick<Config, 'publicUrl' | 'secret'>): AttachmentOutput {
  return {
    id: row.id,
    name: row.name,
    mimetype: row.mimetype,
    size: row.size,
    url: publicFileUrl(config, { container: row.container, key: row.fileKey }),
    user_id: row.userId,
    author_visibility: row.authorVisibility,
    created_at: row.createdAt,
  };
}
