import type { Database, Db } from '../../db/database';
import { newId } from '../../db/columns';
import { CommitInDoubt } from '../../db/errors';
import { isSegment, type FileStore } from '../../files/store';
import { invalid, notFound } from '../../http/errors';
import { servedAs } from './file-types';
import { deleteFileRow, fileByRef, lockedFile, recordFile, recordedKeysAmong, type FileRow } from './repo';
import { msg } from '../../i18n/messages';

export type { FileRow };

/** Where a stored file lives: a container (folder) and a random key within it. */
export interface FileRef {
  container: string;
  key: string;
}

/** What the storage functions need: the bytes go to `files`, the rows to `database`. */
export interface StorageDeps {
  files: FileStore;
  database: Database;
}

/** A file to store: its bytes and what its row says of them. */
export interface NewFile {
  userId: string | null;
  name: string;
  mimetype: string;
  data: Uint8Array;
  container?: string;
  /** The workshop its bytes count against (an upload's limit), when known as it is stored. */
  workshopId?: string | null;
}

export const DEFAULT_CONTAINER = 'uploads';
/** Files the service made: workshop exports. */
export const EXPORTS_CONTAINER = 'exports';
export const AVATAR_CONTAINER = 'avatars';
/** Every container blobs are written to, each blob with a `files` row once recorded. */
export const CONTAINERS = [DEFAULT_CONTAINER, AVATAR_CONTAINER, EXPORTS_CONTAINER] as const;
/**
 * A reference that can name an object (`<container>/<key>`), by the store's own rule for names: a
 * reference read from a link or a request that is not one is no file, rather than an error.
 */
export function isSafeRef(ref: FileRef): boolean {
  return isSegment(ref.container) && isSegment(ref.key);
}

/** The object a stored file's bytes are kept under: `<container>/<key>`, in either store. */
export function objectName(ref: FileRef): string {
  if (!isSafeRef(ref)) throw new Error(`Unsafe file reference ${ref.container}/${ref.key}`);
  return `${ref.container}/${ref.key}`;
}

/** Bytes stored under `ref`, not yet recorded: what `recordFile` writes the row of. */
export type StoredBlob = FileRef & {
  userId: string | null;
  name: string;
  mimetype: string;
  size: number;
  workshopId: string | null;
};

/**
 * Writes the bytes under a fresh unguessable key, before any transaction: a write never waits on
 * the storage while it holds the database. The caller records the row (`recordFile`), or removes
 * the blob again (`removeBlob`) if that fails.
 */
export async function putBlob(files: FileStore, input: NewFile): Promise<StoredBlob> {
  const ref = { container: input.container ?? DEFAULT_CONTAINER, key: newId() };
  // The bucket's own record of the type is the one the service serves, should anyone read it there.
  const contentType = ref.container === EXPORTS_CONTAINER ? input.mimetype : servedAs(input.data).type;
  await files.put(objectName(ref), input.data, { contentType });
  return {
    ...ref,
    userId: input.userId,
    name: input.name,
    mimetype: input.mimetype,
    size: input.data.byteLength,
    workshopId: input.workshopId ?? null,
  };
}

/**
 * Writes the bytes and records them in `files`, in a transaction of its own. The blob is written
 * first, so a row never points at nothing; if the row cannot be written the blob is removed again,
 * unless the commit is in doubt: the row may be there, and a row whose bytes are gone is worse
 * than bytes nobody refers to. `admit` runs in that transaction before the row is written: what
 * it throws (a limit) refuses the file, and its blob is removed.
 */
export async function saveFile(deps: StorageDeps, input: NewFile, admit?: (tx: Db) => Promise<void>): Promise<FileRow> {
  const blob = await putBlob(deps.files, input);
  try {
    return await deps.database.transaction(async (tx) => {
      await admit?.(tx);
      return recordFile(tx, blob, blob);
    });
  } catch (err) {
    if (!(err instanceof CommitInDoubt)) await removeBlob(deps.files, blob);
    throw err;
  }
}

export async function findFile(db: Db, ref: FileRef): Promise<FileRow | undefined> {
  if (!isSafeRef(ref)) return undefined;
  return fileByRef(db, ref);
}

/** Which of `keys` have a `files` row in `container`: one query for a whole page of objects. */
export async function recordedKeys(db: Db, container: string, keys: readonly string[]): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  return new Set(await recordedKeysAmong(db, container, keys));
}

/**
 * The one rule for referencing an upload (attachments, illustrations): the blob must be a file the
 * caller uploaded. Anything else, someone else's key included, is a 400 on `blob.key`. The row is
 * locked for the rest of the write, so the sweep of unattached uploads passes it over rather than
 * deleting it under the attachment being made (one it deleted first is gone here: a 400 too).
 */
export async function ownUpload(tx: Db, userId: string, blob: FileRef): Promise<FileRow> {
  const file = isSafeRef(blob) ? await lockedFile(tx, blob) : undefined;
  if (!file || file.userId !== userId) throw invalid('blob.key', msg('error.uploads.not_your_upload'));
  return file;
}

/** The stored bytes; a 404 when the object is gone (removed meanwhile, or lost by the storage). */
export async function readFile(deps: { files: FileStore }, file: FileRef): Promise<Buffer> {
  const data = await deps.files.get(objectName(file));
  if (!data) throw notFound('file');
  return data;
}

/** Removes the row and the blob. */
export async function deleteFile(deps: StorageDeps, file: FileRef): Promise<void> {
  await deps.database.transaction((tx) => deleteFileRow(tx, file));
  await removeBlob(deps.files, file);
}

/**
 * Removes only the bytes: for a row deleted in a transaction that has committed, or a blob no row
 * was written for. The change it follows stands whatever happens here, so a storage that fails now
 * is logged, not answered: the blob is left, unreachable (exports' are swept later).
 */
export async function removeBlob(files: FileStore, file: FileRef): Promise<void> {
  if (!isSafeRef(file)) return;
  try {
    await files.delete(objectName(file));
  } catch (err) {
    console.error(`[files] removing ${objectName(file)} failed`, err);
  }
}
