import * as v from 'valibot';
import { queryInteger } from '../../http/validation';
import { said } from '../../i18n/valibot';

/** What POST /v1/uploads answers: the members a `blob` reference is made of, plus a download link. */
export const UploadOutput = v.object({
  url: v.string(),
  key: v.string(),
  container: v.string(),
  mimetype: v.string(),
  size: v.number(),
});
export type UploadOutput = v.InferOutput<typeof UploadOutput>;

export const IMAGE_MAX_SIDE = 4096;

/** Query of a signed file link; `mode` with `width` and `height` asks for a cropped or resized image. */
export const FileQuery = v.object({
  expires: v.optional(v.string()),
  signature: v.optional(v.string()),
  mode: v.optional(v.picklist(['crop', 'resize'], said('error.validation.crop_or_resize'))),
  width: v.optional(queryInteger(1, IMAGE_MAX_SIDE)),
  height: v.optional(queryInteger(1, IMAGE_MAX_SIDE)),
});
export type FileQuery = v.InferOutput<typeof FileQuery>;
