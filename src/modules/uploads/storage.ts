import { createHmac, timingSafeEqual } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import type { Config } from '../../config';
import { tablesOf, type Database, type Db, type Schema } from '../../db/database';
import { newId } from '../../db/columns';
import { CommitInDoubt } from '../../db/errors';
import { named, preparedPerDb } from '../../db/prepared';
import { forUpdate, inList } from '../../db/sql';
import { isSegment, type FileStore } from '../../files/store';
import { invalid, notFound } from '../../http/errors';

export type FileRow = Schema['files']['$inferSelect'];

/** Where a stored file lives: a container (folder) and a random key within it. */
export interface FileRef {
  container: string;
  key: string;
}

export type ImageMode = 'crop' | 'resize';

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

type SigningConfig = Pick<Config, 'publicUrl' | 'secret'>;

export const DEFAULT_CONTAINER = 'uploads';
/** Files the service made: workshop exports. */
export const EXPORTS_CONTAINER = 'exports';
export const AVATAR_CONTAINER = 'avatars';
/** Every container blobs are written to, each blob with a `files` row once recorded. */
export const CONTAINERS = [DEFAULT_CONTAINER, AVATAR_CONTAINER, EXPORTS_CONTAINER] as const;
export const LINK_TTL_SECONDS = 7 * 24 * 3600;
/** Expiries are rounded up to the hour so a link stays the same for an hour and browsers can cache it. */
const EXPIRY_STEP_SECONDS = 3600;
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
  await files.put(objectName(ref), input.data, { contentType: input.mimetype });
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

/** Records a file a worker thread has already written under `ref` (in the caller's transaction). */
export async function recordFile(
  tx: Db,
  ref: FileRef,
  input: { userId: string | null; name: string; mimetype: string; size: number; workshopId?: string | null },
): Promise<FileRow> {
  const { files } = tablesOf(tx);
  const row = {
    container: ref.container,
    key: ref.key,
    userId: input.userId,
    name: input.name,
    mimetype: input.mimetype,
    size: input.size,
    workshopId: input.workshopId ?? null,
  };
  return (await tx.insert(files).values(row).returning())[0]!;
}

const lookups = preparedPerDb((db: Db) => {
  const { files } = tablesOf(db);
  return named(
    db
      .select()
      .from(files)
      .where(and(eq(files.container, sql.placeholder('container')), eq(files.key, sql.placeholder('key')))),
    'files_by_ref',
  );
});

export async function findFile(db: Db, ref: FileRef): Promise<FileRow | undefined> {
  if (!isSafeRef(ref)) return undefined;
  return (await lookups(db).execute({ container: ref.container, key: ref.key }))[0];
}

/** Which of `keys` have a `files` row in `container`: one query for a whole page of objects. */
export async function recordedKeys(db: Db, container: string, keys: readonly string[]): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const { files } = tablesOf(db);
  const rows = await db
    .select({ key: files.key })
    .from(files)
    .where(and(eq(files.container, container), inList(db, files.key, keys)));
  return new Set(rows.map((row) => row.key));
}

/**
 * The one rule for referencing an upload (attachments, illustrations): the blob must be a file the
 * caller uploaded. Anything else, someone else's key included, is a 400 on `blob.key`. The row is
 * locked for the rest of the write, so the sweep of unattached uploads passes it over rather than
 * deleting it under the attachment being made (one it deleted first is gone here: a 400 too).
 */
export async function ownUpload(tx: Db, userId: string, blob: FileRef): Promise<FileRow> {
  const { files } = tablesOf(tx);
  const [file] = isSafeRef(blob)
    ? await forUpdate(
        tx,
        tx
          .select()
          .from(files)
          .where(and(eq(files.container, blob.container), eq(files.key, blob.key))),
        { referenced: true },
      )
    : [];
  if (!file || file.userId !== userId) throw invalid('blob.key', 'No file you uploaded has this key and container.');
  return file;
}

/** The stored bytes; a 404 when the object is gone (removed meanwhile, or lost by the storage). */
export async function readFile(deps: { files: FileStore }, file: FileRef): Promise<Buffer> {
  const data = await deps.files.get(objectName(file));
  if (!data) throw notFound('File');
  return data;
}

/** Removes the row and the blob. */
export async function deleteFile(deps: StorageDeps, file: FileRef): Promise<void> {
  await deps.database.transaction((tx) => deleteFileRow(tx, file));
  await removeBlob(deps.files, file);
}

/** Removes only the row, inside a caller's transaction; `removeBlob` once it has committed. */
export async function deleteFileRow(tx: Db, file: FileRef): Promise<void> {
  const { files } = tablesOf(tx);
  await tx.delete(files).where(and(eq(files.container, file.container), eq(files.key, file.key)));
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

/** A blob with no `files` row, older than this, is on its way to no row: a stray. */
const STRAY_AFTER_MS = 10 * 60_000;
/** Objects looked at by one sweep: one listing and one query. */
const SWEEP_PAGE = 1_000;

/**
 * Removes blobs of `container` no `files` row refers to: what a write left when its process died
 * between the blob and the row, when the row could not be written and removing the blob failed,
 * or when the commit was in doubt (the blob is kept then: the row may be there) and did not
 * happen; an export render whose outcome could not be recorded too. Recent ones may still be on
 * their way to being recorded. One sweep looks at one page of the container, starting after
 * `after`; `next` is where the following sweep goes on (undefined once the last page was seen:
 * start again), so every blob is reached however many recorded ones sort before it.
 */
export async function sweepStrayBlobs(
  deps: StorageDeps,
  container: string,
  options: { after?: string; now?: number } = {},
): Promise<{ removed: number; next: string | undefined }> {
  const now = options.now ?? Date.now();
  const objects = await deps.files.list(`${container}/`, SWEEP_PAGE, options.after);
  const old = objects
    .filter((object) => now - object.modifiedAt.getTime() >= STRAY_AFTER_MS)
    .map((object) => ({ container, key: object.name.slice(container.length + 1) }))
    .filter(isSafeRef);
  const recorded = await recordedKeys(
    deps.database.db,
    container,
    old.map((ref) => ref.key),
  );
  let removed = 0;
  for (const ref of old) {
    if (recorded.has(ref.key)) continue;
    await removeBlob(deps.files, ref);
    removed += 1;
  }
  return { removed, next: objects.length < SWEEP_PAGE ? undefined : objects.at(-1)!.name };
}

/** Where the sweeps of every container stand: the container swept next, and the page within it. */
export interface SweepCursor {
  container: number;
  after: string | undefined;
}

/** Sweeps one page, then moves the cursor on: through a container's pages, then to the next container. */
export async function sweepNextPage(deps: StorageDeps, cursor: SweepCursor): Promise<SweepCursor> {
  const { next } = await sweepStrayBlobs(deps, CONTAINERS[cursor.container]!, { after: cursor.after });
  return next === undefined
    ? { container: (cursor.container + 1) % CONTAINERS.length, after: undefined }
    : { container: cursor.container, after: next };
}

/** A download link that works without a token until `expires` (seconds since the epoch). */
export function fileUrlUntil(config: SigningConfig, ref: FileRef, expires: number): string {
  return signedUrl(config, ref, '', expires);
}

/** A download link that works without a token for 7 days. */
export function publicFileUrl(config: SigningConfig, ref: FileRef): string {
  return signedUrl(config, ref, '', linkExpiry());
}

/**
 * A signed image link whose `{{width}}` and `{{height}}` the client fills in: the signature covers
 * container, key, mode and expiry but not the size.
 */
export function imageUrlTemplate(config: SigningConfig, ref: FileRef, mode: ImageMode): string {
  return `${signedUrl(config, ref, mode, linkExpiry())}&mode=${mode}&width={{width}}&height={{height}}`;
}

/**
 * A link that never expires, for avatars: they are stored in user and organization rows and
 * shown to everyone those appear to, like any profile picture.
 */
export function permanentFileUrl(config: SigningConfig, ref: FileRef): string {
  return signedUrl(config, ref, '', null);
}

export type LinkCheck = { ok: true; expires: number | null } | { ok: false; reason: string };

/** Checks a link's signature and expiry; `mode` is the one the request asks for ('' for none). */
export function checkSignature(
  config: Pick<Config, 'secret'>,
  ref: FileRef,
  params: { mode: string; expires: string | undefined; signature: string | undefined },
): LinkCheck {
  if (!params.signature) return { ok: false, reason: 'This link is not signed.' };
  if (params.expires !== undefined && !/^\d{1,12}$/.test(params.expires))
    return { ok: false, reason: 'This link is invalid.' };
  const expected = Buffer.from(sign(config.secret, ref, params.mode, params.expires ?? ''));
  const given = Buffer.from(params.signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    return { ok: false, reason: 'This link is invalid.' };
  if (params.expires === undefined) return { ok: true, expires: null };
  const expires = Number(params.expires);
  if (expires * 1000 <= Date.now()) return { ok: false, reason: 'This link has expired.' };
  return { ok: true, expires };
}

/** The stored file a link of this service points at, or null for any other URL. */
export function fileRefFromUrl(config: Pick<Config, 'publicUrl'>, url: string | null): FileRef | null {
  if (!url?.startsWith(`${config.publicUrl}/files/`)) return null;
  const match = /^\/files\/([^/?#]+)\/([^/?#]+)/.exec(url.slice(config.publicUrl.length));
  if (!match) return null;
  const ref = { container: match[1]!, key: match[2]! };
  return isSafeRef(ref) ? ref : null;
}

function linkExpiry(): number {
  const at = Math.floor(Date.now() / 1000) + LINK_TTL_SECONDS;
  return Math.ceil(at / EXPIRY_STEP_SECONDS) * EXPIRY_STEP_SECONDS;
}

function signedUrl(config: SigningConfig, ref: FileRef, mode: string, expires: number | null): string {
  const expiry = expires === null ? '' : String(expires);
  const signature = sign(config.secret, ref, mode, expiry);
  const query = expires === null ? `signature=${signature}` : `expires=${expiry}&signature=${signature}`;
  return `${config.publicUrl}/files/${ref.container}/${ref.key}?${query}`;
}

function sign(secret: string, ref: FileRef, mode: string, expires: string): string {
  return createHmac('sha256', secret)
    .update(`file\n${ref.container}\n${ref.key}\n${mode}\n${expires}`)
    .digest('base64url');
}
