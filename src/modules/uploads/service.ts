import type { Config } from '../../config';
import type { Db } from '../../db/database';
import type { FileStore } from '../../files/store';
import { AppError, invalid, notFound } from '../../http/errors';
import { contentDisposition } from '../../http/content-disposition';
import { findAccess } from '../access/load';
import { authorize } from '../access/rules';
import { isImageMimetype, transformImage } from './images';
import { checkedMimetype, peekStream, servedAs, SIGNATURE_BYTES } from './file-types';
import { cleanFileName, declaredMimetype } from './multipart';
import {
  admitUpload,
  refuseBeyondDailyAllowance,
  refuseBeyondWorkshopRoom,
  type UploadLimits,
  type Uploader,
} from './quota';
import { guestWorkshopOf } from './repo';
import type { FileQuery, UploadOutput } from './schemas';
import { checkSignature, publicFileUrl } from './file-links';
import {
  EXPORTS_CONTAINER,
  findFile,
  objectName,
  readFile,
  saveFile,
  type FileRef,
  type FileRow,
  type StorageDeps,
} from './storage';
import { msg } from '../../i18n/messages';

type UploadDeps = StorageDeps & { config: Pick<Config, 'publicUrl' | 'secret'> };

/** Permanent links are cached like any immutable asset: a new upload always gets a new key. */
const PERMANENT_MAX_AGE = 365 * 24 * 3600;

export function toUpload(config: Pick<Config, 'publicUrl' | 'secret'>, file: FileRow): UploadOutput {
  return {
    url: publicFileUrl(config, file),
    key: file.key,
    container: file.container,
    mimetype: file.mimetype,
    size: file.size,
  };
}

/**
 * Stores an upload within the limits: the uploader's for the day, and for a guest their
 * workshop's (a user's upload counts against a workshop once it is attached there). Checked
 * before the bytes are written, so a refusal costs no storage, and again where the row is
 * recorded, which decides; refused there, the bytes are removed: nothing is stored.
 */
export async function uploadFile(
  deps: UploadDeps & { config: UploadLimits },
  uploader: Uploader,
  part: File,
): Promise<UploadOutput> {
  const data = new Uint8Array(await part.arrayBuffer());
  const { database, config } = deps;
  const workshopId = uploader.guest ? await guestWorkshopOf(database.db, uploader.id) : null;
  // A guest's upload can only become an attachment in their workshop: it needs that right now
  // (none in the lobby, docs/api.md#the-lobby).
  const access = workshopId ? await findAccess(database.db, workshopId, uploader.id) : null;
  if (access) authorize(access, 'attachment', { allowArchived: true });
  await refuseBeyondDailyAllowance(database.db, config, uploader, data.byteLength);
  if (workshopId) await refuseBeyondWorkshopRoom(database.db, config, workshopId, data.byteLength);
  const admit = (tx: Db) => admitUpload(tx, deps, uploader, { size: data.byteLength, workshopId });
  const file = await saveFile(
    deps,
    {
      userId: uploader.id,
      workshopId,
      name: cleanFileName(part.name),
      mimetype: checkedMimetype(declaredMimetype(part), data),
      data,
    },
    admit,
  );
  return toUpload(deps.config, file);
}

export interface FileResponse {
  body: ReadableStream | Uint8Array<ArrayBuffer>;
  headers: Record<string, string>;
}

/**
 * Answers a signed file link. Query shape errors come first (400), then the signature (403, before
 * anything reveals whether the file exists), then the file itself (404).
 */
export async function serveFile(deps: UploadDeps, ref: FileRef, query: FileQuery): Promise<FileResponse> {
  const size = query.mode ? requestedSize(query) : null;
  const check = checkSignature(deps.config, ref, {
    mode: query.mode ?? '',
    expires: query.expires,
    signature: query.signature,
  });
  if (!check.ok) throw new AppError('forbidden', check.reason);
  const file = await findFile(deps.database.db, ref);
  if (!file) throw notFound('file');
  const maxAge =
    check.expires === null ? PERMANENT_MAX_AGE : Math.max(0, check.expires - Math.floor(Date.now() / 1000));

  if (query.mode && size) {
    if (!isImageMimetype(file.mimetype)) throw invalid('mode', msg('error.uploads.resize_images_only'));
    const image = await transformImage(await readFile(deps, file), query.mode, size.width, size.height);
    return {
      body: new Uint8Array(image),
      headers: fileHeaders(file, { served: servedAs(image), length: image.byteLength, maxAge }),
    };
  }
  return storedFileResponse(deps, file, { maxAge });
}

/**
 * A stored file streamed from storage (a folder or a bucket), with the headers every stored file
 * is served with; a 404 when its object is gone. An export is the service's own file, offered for
 * saving under the type it was made with; any other file is judged by its first bytes, whatever
 * its row says it is (docs/operations.md#files-served-safely).
 */
export async function storedFileResponse(
  deps: { files: FileStore },
  file: FileRow,
  options: { maxAge: number },
): Promise<FileResponse> {
  const object = await deps.files.stream(objectName(file));
  if (!object) throw notFound('file');
  const length = object.size;
  if (file.container === EXPORTS_CONTAINER) {
    const served = { type: file.mimetype, disposition: 'attachment' as const };
    return { body: object.body, headers: fileHeaders(file, { served, length, maxAge: options.maxAge }) };
  }
  const { head, body } = await peekStream(object.body, SIGNATURE_BYTES);
  return { body, headers: fileHeaders(file, { served: servedAs(head), length, maxAge: options.maxAge }) };
}

function fileHeaders(
  file: FileRow,
  options: { served: { type: string; disposition: 'inline' | 'attachment' }; length: number; maxAge: number },
): Record<string, string> {
  return {
    'Content-Type': options.served.type,
    'Content-Length': String(options.length),
    'Cache-Control': `private, max-age=${options.maxAge}, immutable`,
    'Content-Disposition': contentDisposition(options.served.disposition, file.name),
    // Files are served from the API's origin: never sniffed, never run as a page.
    'X-Content-Type-Options': 'nosniff',
    'Content-Security-Policy': "default-src 'none'; sandbox",
  };
}

function requestedSize(query: FileQuery): { width: number; height: number } {
  if (query.width === undefined) throw invalid('width', msg('error.uploads.width_required'));
  if (query.height === undefined) throw invalid('height', msg('error.uploads.height_required'));
  return { width: query.width, height: query.height };
}
