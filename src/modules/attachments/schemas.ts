import * as v from 'valibot';
import type { Config } from '../../config';
import type { Schema } from '../../db/database';
import { optionalText, requiredText } from '../../http/validation';
import { publicFileUrl } from '../uploads/file-links';
import { AuthorVisibilityOutput } from '../../domain/prefs';

export type AttachmentRow = Schema['attachments']['$inferSelect'];

export const AttachmentOutput = v.object({
  id: v.string(),
  name: v.string(),
  mimetype: v.string(),
  size: v.number(),
  /** Signed download link; works without a token until it expires. */
  url: v.string(),
  /**
   * Null when attached anonymously and the reader may not see who did
   * (docs/api.md#private-writing-and-anonymous-authors).
   */
  user_id: v.nullable(v.string()),
  author_visibility: AuthorVisibilityOutput,
  created_at: v.string(),
});
export type AttachmentOutput = v.InferOutput<typeof AttachmentOutput>;

const segment = v.pipe(v.string(), v.minLength(1, 'Must not be empty.'), v.maxLength(64));

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
