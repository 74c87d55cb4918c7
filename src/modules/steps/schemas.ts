import * as v from 'valibot';
import { IllustrationAlign, IllustrationOutput } from '../../domain/steps';
import type { Config } from '../../config';
import type { Schema } from '../../db/database';
import { optionalText, requiredText } from '../../http/validation';
import { imageUrlTemplate, publicFileUrl } from '../uploads/file-links';
import { ViewInput } from '../../domain/view';
import { PrefsInput } from '../../domain/prefs';

export type StepRow = Schema['steps']['$inferSelect'];
export type IllustrationRow = Schema['stepIllustrations']['$inferSelect'];

const position = v.pipe(v.number(), v.integer(), v.minValue(0));

/** Create and update take the same members; `name` is required in both (spec: Steps). */
export const StepInput = v.object({
  name: requiredText(200),
  instructions: v.optional(optionalText(20_000)),
  position: v.optional(position),
  prefs: v.optional(PrefsInput),
  view: v.optional(ViewInput),
});
export type StepInput = v.InferOutput<typeof StepInput>;

const align = IllustrationAlign;

const storageName = v.pipe(v.string(), v.minLength(1), v.maxLength(200));

export const CreateIllustrationInput = v.object({
  name: v.optional(requiredText(255)),
  align: v.optional(align, 'above'),
  blob: v.object({
    url: v.optional(v.pipe(v.string(), v.maxLength(2048))),
    mimetype: v.optional(v.pipe(v.string(), v.maxLength(255))),
    key: storageName,
    container: storageName,
  }),
});
export type CreateIllustrationInput = v.InferOutput<typeof CreateIllustrationInput>;

export const UpdateIllustrationInput = v.object({
  align: v.optional(align),
  name: v.optional(requiredText(255)),
});
export type UpdateIllustrationInput = v.InferOutput<typeof UpdateIllustrationInput>;

export function toIllustration(row: IllustrationRow, config: Config): IllustrationOutput {
  const file = { container: row.container, key: row.fileKey };
  return {
    id: row.id,
    name: row.name,
    align: row.align,
    public_url: publicFileUrl(config, file),
    crop_url: imageUrlTemplate(config, file, 'crop'),
    resize_url: imageUrlTemplate(config, file, 'resize'),
  };
}
