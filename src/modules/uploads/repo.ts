import { and, asc, eq, gte, inArray, isNull, lt, notExists, sql } from 'drizzle-orm';
import { tablesOf, type Db, type Schema } from '../../db/database';
import { named, preparedPerDb } from '../../db/prepared';
import { forUpdate, inList } from '../../db/sql';

/*
 * The queries of stored files' rows (`storage.ts`), of the upload limits and of the sweep of
 * uploads attached to nothing. Sizes are summed in the database; PostgreSQL answers a sum as text
 * (a bigint), hence the `Number`s.
 */

export type FileRow = Schema['files']['$inferSelect'];

/** A file's row by where its bytes live (`storage.ts`'s `FileRef`). */
type FileKey = Pick<FileRow, 'container' | 'key'>;

/** The container `POST /v1/uploads` stores into (avatars and exports have their own). */
const UPLOADS = 'uploads';

/** The workshop a guest belongs to: a guest is a member of exactly one. */
export async function guestWorkshopOf(db: Db, userId: string): Promise<string | null> {
  const { workshopMembers } = tablesOf(db);
  const [row] = await db
    .select({ workshopId: workshopMembers.workshopId })
    .from(workshopMembers)
    .where(eq(workshopMembers.userId, userId))
    .limit(1);
  return row?.workshopId ?? null;
}

/** Bytes `userId` uploaded since `since` (ISO 8601) that are still stored. */
export async function uploadedBytesSince(db: Db, userId: string, since: string): Promise<number> {
  const { files } = tablesOf(db);
  const [row] = await db
    .select({ bytes: sql<string | number>`coalesce(sum(${files.size}), 0)` })
    .from(files)
    .where(and(eq(files.container, UPLOADS), eq(files.userId, userId), gte(files.createdAt, since)));
  return Number(row?.bytes ?? 0);
}

/**
 * When the upload of `userId` since `since` is made, oldest first, by which at least `bytes` of
 * them have been uploaded (ISO 8601): once it is a day old, those bytes no longer count. Null when
 * all of them together make less.
 */
export async function uploadFreeingBytes(db: Db, userId: string, since: string, bytes: number): Promise<string | null> {
  const { files } = tablesOf(db);
  const running = db
    .select({
      createdAt: files.createdAt,
      upTo: sql<
        string | number
      >`sum(${files.size}) over (order by ${files.createdAt}, ${files.id} rows unbounded preceding)`.as('up_to'),
    })
    .from(files)
    .where(and(eq(files.container, UPLOADS), eq(files.userId, userId), gte(files.createdAt, since)))
    .as('running');
  const [row] = await db
    .select({ createdAt: running.createdAt })
    .from(running)
    .where(gte(running.upTo, bytes))
    .orderBy(asc(running.createdAt))
    .limit(1);
  return row?.createdAt ?? null;
}

/** Bytes of the uploads counted against `workshopId`. */
export async function workshopStoredBytes(db: Db, workshopId: string): Promise<number> {
  const { files } = tablesOf(db);
  const [row] = await db
    .select({ bytes: sql<string | number>`coalesce(sum(${files.size}), 0)` })
    .from(files)
    .where(eq(files.workshopId, workshopId));
  return Number(row?.bytes ?? 0);
}

/**
 * Counts the upload against `workshopId` unless it already counts against a workshop: its bytes
 * are stored once, whatever uses it. Answers whether it now counts against this one.
 */
export async function claimForWorkshop(tx: Db, fileId: string, workshopId: string): Promise<boolean> {
  const { files } = tablesOf(tx);
  const claimed = await tx
    .update(files)
    .set({ workshopId })
    .where(and(eq(files.id, fileId), isNull(files.workshopId)))
    .returning({ id: files.id });
  return claimed.length > 0;
}

/** Uploads nothing refers to: no attachment, no step illustration (avatars and exports live in containers of their own). */
function unattached(db: Db) {
  const { attachments, files, stepIllustrations } = tablesOf(db);
  return and(
    eq(files.container, UPLOADS),
    notExists(
      db
        .select({ one: sql`1` })
        .from(attachments)
        .where(and(eq(attachments.fileKey, files.key), eq(attachments.container, files.container))),
    ),
    notExists(
      db
        .select({ one: sql`1` })
        .from(stepIllustrations)
        .where(and(eq(stepIllustrations.fileKey, files.key), eq(stepIllustrations.container, files.container))),
    ),
  );
}

/**
 * Deletes the rows of up to `limit` uploads made before `before` that nothing refers to, and
 * answers them (their objects are the caller's to remove once this commits). The candidates are
 * locked first, passing over those another transaction holds (an attach locks the upload it
 * takes, `ownUpload`; another instance's sweep its own), then deleted by a second statement that
 * looks again: on PostgreSQL it sees what committed meanwhile, so an upload attached just now stays.
 */
export async function deleteUnattachedUploads(tx: Db, before: string, limit: number): Promise<FileKey[]> {
  const { files } = tablesOf(tx);
  const candidates = await forUpdate(
    tx,
    tx
      .select({ id: files.id })
      .from(files)
      .where(and(unattached(tx), lt(files.createdAt, before)))
      .orderBy(asc(files.createdAt))
      .limit(limit),
    { skipLocked: true },
  );
  if (candidates.length === 0) return [];
  const ids = candidates.map((row) => row.id);
  return tx
    .delete(files)
    .where(and(inArray(files.id, ids), unattached(tx)))
    .returning({ container: files.container, key: files.key });
}

/** Records a file a worker thread has already written under `ref` (in the caller's transaction). */
export async function recordFile(
  tx: Db,
  ref: FileKey,
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

/** The file's row, if it was recorded. */
export async function fileByRef(db: Db, ref: FileKey): Promise<FileRow | undefined> {
  return (await lookups(db).execute({ container: ref.container, key: ref.key }))[0];
}

/** The keys among `keys` that have a row in `container`. */
export async function recordedKeysAmong(db: Db, container: string, keys: readonly string[]): Promise<string[]> {
  const { files } = tablesOf(db);
  const rows = await db
    .select({ key: files.key })
    .from(files)
    .where(and(eq(files.container, container), inList(db, files.key, keys)));
  return rows.map((row) => row.key);
}

/**
 * The file's row, locked for the rest of the transaction (`FOR NO KEY UPDATE` on PostgreSQL: rows
 * referencing it can still be inserted), so the sweep of unattached uploads passes it over.
 */
export async function lockedFile(tx: Db, ref: FileKey): Promise<FileRow | undefined> {
  const { files } = tablesOf(tx);
  const [file] = await forUpdate(
    tx,
    tx
      .select()
      .from(files)
      .where(and(eq(files.container, ref.container), eq(files.key, ref.key))),
    { referenced: true },
  );
  return file;
}

/** Removes only the row, inside a caller's transaction; `removeBlob` once it has committed. */
export async function deleteFileRow(tx: Db, file: FileKey): Promise<void> {
  const { files } = tablesOf(tx);
  await tx.delete(files).where(and(eq(files.container, file.container), eq(files.key, file.key)));
}
