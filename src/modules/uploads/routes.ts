import { Hono } from 'hono';
import type { AppDeps } from '../../deps';
import type { AppEnv } from '../../http/env';
import { doc } from '../../http/openapi';
import { queryParams } from '../../http/validation';
import { readMultipart, requiredFile } from './multipart';
import { FileQuery, UploadOutput } from './schemas';
import { serveFile, uploadFile } from './service';

export function uploadsRoutes(deps: AppDeps) {
  return new Hono<AppEnv>().post(
    '/uploads',
    doc({
      tag: 'Uploads',
      summary: 'Upload a file (at most 20 MiB) to reference as an attachment or illustration',
      status: 201,
      response: UploadOutput,
      multipart: {
        file: {
          description:
            "The file; its name is kept. Its type (mimetype) is the bytes' own for PNG, JPEG, GIF and WebP, else the part's type, except application/octet-stream for a claim to those four the bytes deny",
          required: true,
        },
      },
      errors: {
        413: "payload_too_large: the file is above 20 MiB; workshop_storage_full: a guest's workshop has no room left for it (UPLOAD_WORKSHOP_MB). Nothing was stored",
        429: "upload_quota_exceeded: the uploads of the last 24 hours and this one would pass the uploader's daily allowance (UPLOAD_USER_DAILY_MB, guests UPLOAD_GUEST_DAILY_MB); Retry-After says when it fits. Nothing was stored",
        503: 'The database or the file storage is unavailable; nothing was stored',
      },
    }),
    async (c) => {
      const file = requiredFile(await readMultipart(c), 'file');
      const { id, guest } = c.get('user');
      return c.json(await uploadFile(deps, { id, guest }, file), 201);
    },
  );
}

/** Signed file links: no bearer token, the signature in the query is the permission. */
export function publicFileRoutes(deps: AppDeps) {
  return new Hono<AppEnv>().get(
    '/files/:container/:key',
    doc({
      tag: 'Uploads',
      summary: 'Download a file through a signed link; with mode, width and height, a cropped or resized image',
      // PNG, JPEG, GIF and WebP inline, as their bytes show; exports as what they are, to save;
      // anything else application/octet-stream, to save (docs/operations.md#files-served-safely).
      produces: ['image/png', 'image/jpeg', 'image/gif', 'image/webp', 'application/octet-stream', '*/*'],
      auth: false,
      errors: { 403: 'The signature is wrong or the link has expired', 503: 'The file storage is unavailable' },
    }),
    queryParams(FileQuery),
    async (c) => {
      const { body, headers } = await serveFile(deps, c.req.param(), c.req.valid('query'));
      return c.body(body, 200, headers);
    },
  );
}
