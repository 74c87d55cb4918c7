import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { and, count, desc, eq, lt, type SQL } from 'drizzle-orm';
import type { AppDeps } from '../../deps';
import type { Tx } from '../../db/client';
import { nowIso } from '../../db/columns';
import { workshopExports, workshops } from '../../db/schema/index';
import { AppError, notFound } from '../../http/errors';
import type { UserRow } from '../../http/env';
import { loadAccess } from '../access/load';
import { authorize } from '../access/rules';
import { diffFields, write } from '../events/recorder';
import { storedFileResponse, type FileResponse } from '../uploads/service';
import { deleteFileRow, EXPORTS_CONTAINER, findFile, isSafeRef, LINK_TTL_SECONDS, recordFile, removeBlob, type FileRef } from '../uploads/storage';
import type { ExportOutput as ExportResource } from '../events/changes';
import type { ExportOutcome } from './job-messages';
import { exportFile, toExport, type CreateExportInput, type ExportRow } from './schemas';

export { EXPORTS_CONTAINER };

/*
 * Exports (spec: Exports; CONTRACT §7), facilitators only: a request records a pending export and
 * answers at once; the export runner (`jobs.ts`) makes the file in a worker thread and
 * `finishExport` records the outcome. Each step is logged (`addExport`, `updateExport`,
 * `removeExport`) and reaches facilitators' sockets as `export:updated` / `export:deleted`.
 */

/**
 * Exports waiting to be made, at most, per workshop and per requesting user: the queue is shared
 * by every workshop of the instance, so one facilitator cannot fill it for everyone else.
 */
export const MAX_PENDING_PER_WORKSHOP = 5;
export const MAX_PENDING_PER_USER = 10;

export function createExport(deps: AppDeps, user: UserRow, workshopId: string, input: CreateExportInput): ExportResource {
  return write(deps, (tx, changes) => {
    authorize(loadAccess(deps.database.db, workshopId, user.id), 'facilitate');
    const pending = (condition: SQL) => tx.select({ n: count() }).from(workshopExports).where(and(eq(workshopExports.state, 'pending'), condition)).get()!.n;
    if (pending(eq(workshopExports.workshopId, workshopId)) >= MAX_PENDING_PER_WORKSHOP) {
      throw new AppError('conflict', `${MAX_PENDING_PER_WORKSHOP} exports of this workshop are still being made; ask again once one is done.`);
    }
    if (pending(eq(workshopExports.requestedBy, user.id)) >= MAX_PENDING_PER_USER) {
      throw new AppError('conflict', `${MAX_PENDING_PER_USER} of your exports are still being made; ask again once one is done.`);
    }
    const row = tx.insert(workshopExports).values({ workshopId, type: input.type, requestedBy: user.id }).returning().get();
    const resource = toExport(deps.config, row);
    changes.record({ workshopId, action: 'addExport', userId: user.id, change: { export: resource } });
    return resource;
  });
}

/** The workshop's exports, newest first. */
export function listExports(deps: AppDeps, user: UserRow, workshopId: string): ExportResource[] {
  const { db } = deps.database;
  authorize(loadAccess(db, workshopId, user.id), 'facilitate', { allowArchived: true });
  return db
    .select()
    .from(workshopExports)
    .where(eq(workshopExports.workshopId, workshopId))
    .orderBy(desc(workshopExports.createdAt), desc(workshopExports.id))
    .all()
    .map((row) => toExport(deps.config, row));
}

export function getExport(deps: AppDeps, user: UserRow, workshopId: string, exportId: string): ExportResource {
  const { db } = deps.database;
  authorize(loadAccess(db, workshopId, user.id), 'facilitate', { allowArchived: true });
  return toExport(deps.config, findExport(deps, workshopId, exportId));
}

/** The export's file, streamed from storage; 409 while it is pending or when it failed. */
export async function downloadExport(deps: AppDeps, user: UserRow, workshopId: string, exportId: string): Promise<FileResponse> {
  const { db } = deps.database;
  authorize(loadAccess(db, workshopId, user.id), 'facilitate', { allowArchived: true });
  const row = findExport(deps, workshopId, exportId);
  const file = row.state === 'success' ? exportFile(row) : null;
  const stored = file ? findFile(db, file) : undefined;
  if (!stored) {
    const why = row.state === 'failed' ? `This export failed: ${row.message ?? 'no file was made'}.` : 'This export is not ready yet; wait for export:updated or GET it again.';
    throw new AppError('conflict', why);
  }
  return storedFileResponse(deps, stored, { maxAge: 0 });
}

/** Deletes the export and its file (its link stops working). */
export function deleteExport(deps: AppDeps, user: UserRow, workshopId: string, exportId: string): void {
  let file: FileRef | null = null;
  write(deps, (tx, changes) => {
    authorize(loadAccess(deps.database.db, workshopId, user.id), 'facilitate');
    const row = findExport(deps, workshopId, exportId);
    file = exportFile(row);
    tx.delete(workshopExports).where(eq(workshopExports.id, row.id)).run();
    if (file) deleteFileRow(tx, file);
    changes.record({ workshopId, action: 'removeExport', userId: user.id, change: { export: toExport(deps.config, row) } });
  });
  if (file) removeBlob(deps.config, file);
}

/**
 * Inside the transaction deleting a workshop: removes its exports' file rows (their links stop
 * working at once) and returns the files, whose bytes the caller removes once it has committed.
 */
export function dropWorkshopExports(tx: Tx, workshopId: string): FileRef[] {
  const refs = tx
    .select({ fileContainer: workshopExports.fileContainer, fileKey: workshopExports.fileKey })
    .from(workshopExports)
    .where(eq(workshopExports.workshopId, workshopId))
    .all()
    .flatMap((row) => exportFile(row) ?? []);
  for (const ref of refs) deleteFileRow(tx, ref);
  return refs;
}

/**
 * Exports are kept as long as a link made for them works (7 days): older ones, files included,
 * are removed and logged as `removeExport` by nobody. Returns how many went.
 */
export function pruneOldExports(deps: AppDeps, now = Date.now()): number {
  const cutoff = new Date(now - LINK_TTL_SECONDS * 1000).toISOString();
  const old = deps.database.db.select().from(workshopExports).where(lt(workshopExports.createdAt, cutoff)).limit(100).all();
  const files: FileRef[] = [];
  for (const row of old) {
    write(deps, (tx, changes) => {
      const deleted = tx.delete(workshopExports).where(eq(workshopExports.id, row.id)).returning().get();
      if (!deleted) return;
      const file = exportFile(row);
      if (file) {
        deleteFileRow(tx, file);
        files.push(file);
      }
      changes.record({ workshopId: row.workshopId, action: 'removeExport', userId: null, change: { export: toExport(deps.config, row) } });
    });
  }
  for (const file of files) removeBlob(deps.config, file);
  return old.length;
}

/** A file in the exports folder with no `files` row, older than this, belongs to no export. */
const STRAY_AFTER_MS = 10 * 60_000;

/**
 * Removes export files no export refers to: what a render left when its process died or its
 * outcome could not be recorded. Recent ones may still be on their way to being recorded.
 */
export function sweepStrayExportFiles(deps: AppDeps, now = Date.now()): number {
  const folder = join(deps.config.filesDir, EXPORTS_CONTAINER);
  let keys: string[];
  try {
    keys = readdirSync(folder).slice(0, 1_000);
  } catch {
    return 0;
  }
  let removed = 0;
  for (const key of keys) {
    const ref = { container: EXPORTS_CONTAINER, key };
    if (!isSafeRef(ref) || findFile(deps.database.db, ref)) continue;
    const modified = statSync(join(folder, key), { throwIfNoEntry: false })?.mtimeMs;
    if (modified === undefined || now - modified < STRAY_AFTER_MS) continue;
    removeBlob(deps.config, ref);
    removed += 1;
  }
  return removed;
}

/**
 * Records what the worker made of a pending export: the file (written by the worker under
 * `file`) becomes a `files` row and the export `success`, or the export becomes `failed`. An
 * export deleted (or finished by another instance) meanwhile keeps its state, and a file made
 * for it is removed.
 */
export function finishExport(deps: AppDeps, taken: ExportRow, file: FileRef, outcome: ExportOutcome): void {
  const kept = write(deps, (tx, changes) => {
    const before = tx.select().from(workshopExports).where(and(eq(workshopExports.id, taken.id), eq(workshopExports.state, 'pending'))).get();
    if (!before) return false;
    const workshop = tx.select({ title: workshops.title }).from(workshops).where(eq(workshops.id, before.workshopId)).get();
    if (!workshop) return false;
    const now = nowIso();
    let after: ExportRow;
    if (outcome.ok) {
      recordFile(tx, file, { userId: before.requestedBy, name: `${fileBaseName(workshop.title)}.${outcome.extension}`, mimetype: outcome.mimetype, size: outcome.size });
      after = tx
        .update(workshopExports)
        .set({ state: 'success', fileContainer: file.container, fileKey: file.key, leaseUntil: null, updatedAt: now })
        .where(eq(workshopExports.id, before.id))
        .returning()
        .get();
    } else {
      after = tx
        .update(workshopExports)
        .set({ state: 'failed', message: outcome.message, leaseUntil: null, updatedAt: now })
        .where(eq(workshopExports.id, before.id))
        .returning()
        .get();
    }
    const previous = toExport(deps.config, before);
    const resource = toExport(deps.config, after);
    changes.record({
      workshopId: before.workshopId,
      action: 'updateExport',
      userId: before.requestedBy,
      change: { export: resource, changes: diffFields(previous, resource, ['state', 'url', 'message']) },
    });
    return outcome.ok;
  });
  if (outcome.ok && !kept) removeBlob(deps.config, file);
}

function findExport(deps: AppDeps, workshopId: string, exportId: string): ExportRow {
  const row = deps.database.db
    .select()
    .from(workshopExports)
    .where(and(eq(workshopExports.id, exportId), eq(workshopExports.workshopId, workshopId)))
    .get();
  if (!row) throw notFound('Export');
  return row;
}

/** A file name made from the workshop's title: characters file systems refuse become dashes. */
export function fileBaseName(title: string): string {
  const cleaned = title
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f/\\:*?"<>|]+/g, '-')
    .replace(/\s+/g, ' ')
    .replace(/^[\s.-]+|[\s.-]+$/g, '')
    .slice(0, 100)
    .trim();
  return cleaned || 'workshop';
}
