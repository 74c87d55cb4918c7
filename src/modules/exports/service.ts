import type { AppDeps } from '../../deps';
import type { Db } from '../../db/database';
import { nowIso } from '../../db/columns';
import { AppError, notFound } from '../../http/errors';
import type { UserRow } from '../../http/env';
import { loadAccess } from '../access/load';
import { authorize } from '../access/rules';
import { lockUser } from '../../db/user-lock';
import { writeWorkshop } from '../../db/write';
import { diffFields } from '../../domain/events';
import { storedFileResponse, type FileResponse } from '../uploads/service';
import { LINK_TTL_SECONDS } from '../uploads/file-links';
import { findFile, removeBlob, type FileRef } from '../uploads/storage';
import { deleteFileRow, recordFile } from '../uploads/repo';
import type { ExportOutput as ExportResource } from '../../domain/events';
import type { ExportOutcome } from './job-messages';
import {
  deleteExportRow,
  exportFilesOfWorkshop,
  exportOf,
  exportsCreatedBefore,
  exportsOf,
  insertExport,
  markExportFailed,
  markExportMade,
  pendingExport,
  pendingExportsOfWorkshop,
  pendingExportsRequestedBy,
  workshopTitle,
} from './repo';
import { exportFile, toExport, workshopExportsPrefix, type CreateExportInput, type ExportRow } from './schemas';
import { msg } from '../../i18n/messages';

/*
 * Exports (spec: Exports; docs/api.md#exports), facilitators only: a request records a pending export and
 * answers at once; the export runner (`jobs.ts`) makes the file in a worker thread and
 * `finishExport` records the outcome. Each step is logged (`addExport`, `updateExport`,
 * `removeExport`) and reaches facilitators' sockets as `export:updated` / `export:deleted`.
 */

/**
 * Exports waiting to be made are capped per workshop and per requesting user (0: no cap): the
 * queue is shared by every workshop of the service, so one facilitator cannot fill it for everyone
 * else. Each count is taken under a row lock, so concurrent requests on any instances stop at
 * exactly the cap.
 */
export function createExport(
  deps: AppDeps,
  user: UserRow,
  workshopId: string,
  input: CreateExportInput,
): Promise<ExportResource> {
  const { pendingExportsPerWorkshop: perWorkshop, pendingExportsPerUser: perUser } = deps.config;
  return writeWorkshop(deps, workshopId, async (tx, changes) => {
    authorize(await loadAccess(tx, workshopId, user), 'facilitate');
    // The workshop's row is already locked (`writeWorkshop`).
    if (perWorkshop > 0 && (await pendingExportsOfWorkshop(tx, workshopId)) >= perWorkshop) {
      throw new AppError('conflict', msg('error.exports.workshop_busy', { max: perWorkshop }));
    }
    if (perUser > 0) {
      // The user's exports span workshops, whose locks do not order them: the user's row does.
      await lockUser(tx, user.id);
      if ((await pendingExportsRequestedBy(tx, user.id)) >= perUser) {
        throw new AppError('conflict', msg('error.exports.user_busy', { max: perUser }));
      }
    }
    const row = await insertExport(tx, { workshopId, type: input.type, requestedBy: user.id });
    const resource = toExport(deps.config, row);
    changes.record({ workshopId, action: 'addExport', userId: user.id, change: { export: resource } });
    return resource;
  });
}

/** The workshop's exports, newest first. */
export async function listExports(deps: AppDeps, user: UserRow, workshopId: string): Promise<ExportResource[]> {
  const { db } = deps.database;
  authorize(await loadAccess(db, workshopId, user), 'facilitate', { allowArchived: true });
  const rows = await exportsOf(db, workshopId);
  return rows.map((row) => toExport(deps.config, row));
}

export async function getExport(
  deps: AppDeps,
  user: UserRow,
  workshopId: string,
  exportId: string,
): Promise<ExportResource> {
  const { db } = deps.database;
  authorize(await loadAccess(db, workshopId, user), 'facilitate', { allowArchived: true });
  return toExport(deps.config, await findExport(db, workshopId, exportId));
}

/** The export's file, streamed from storage; 409 while it is pending or when it failed. */
export async function downloadExport(
  deps: AppDeps,
  user: UserRow,
  workshopId: string,
  exportId: string,
): Promise<FileResponse> {
  const { db } = deps.database;
  authorize(await loadAccess(db, workshopId, user), 'facilitate', { allowArchived: true });
  const row = await findExport(db, workshopId, exportId);
  const file = row.state === 'success' ? exportFile(row) : null;
  const stored = file ? await findFile(db, file) : undefined;
  if (!stored) {
    const why =
      row.state !== 'failed'
        ? msg('error.exports.not_ready')
        : row.message !== null
          ? msg('error.exports.failed', { reason: row.message })
          : msg('error.exports.failed_no_file');
    throw new AppError('conflict', why);
  }
  return storedFileResponse(deps, stored, { maxAge: 0 });
}

/** Deletes the export and its file (its link stops working). */
export async function deleteExport(deps: AppDeps, user: UserRow, workshopId: string, exportId: string): Promise<void> {
  const file = await writeWorkshop(deps, workshopId, async (tx, changes) => {
    authorize(await loadAccess(tx, workshopId, user), 'facilitate');
    const row = await findExport(tx, workshopId, exportId);
    const stored = exportFile(row);
    await deleteExportRow(tx, row.id);
    if (stored) await deleteFileRow(tx, stored);
    changes.record({
      workshopId,
      action: 'removeExport',
      userId: user.id,
      change: { export: toExport(deps.config, row) },
    });
    return stored;
  });
  if (file) await removeBlob(deps.files, file);
}

/**
 * Inside the transaction deleting a workshop: removes its exports' file rows (their links stop
 * working at once) and returns the files, whose bytes the caller removes once it has committed.
 */
export async function dropWorkshopExports(tx: Db, workshopId: string): Promise<FileRef[]> {
  const rows = await exportFilesOfWorkshop(tx, workshopId);
  const refs = rows.flatMap((row) => exportFile(row) ?? []);
  for (const ref of refs) await deleteFileRow(tx, ref);
  return refs;
}

/**
 * Once the workshop's deletion has committed: removes its exports' objects, those `dropWorkshopExports`
 * found and any other made for it (a render whose outcome was never recorded, or that finished
 * while the workshop went).
 */
export async function removeWorkshopExportFiles(
  deps: Pick<AppDeps, 'files'>,
  workshopId: string,
  files: FileRef[],
): Promise<void> {
  for (const file of files) await removeBlob(deps.files, file);
  try {
    await deps.files.deletePrefix(workshopExportsPrefix(workshopId));
  } catch (err) {
    // The workshop is gone whatever happens here; what is left is swept as stray files.
    console.error(`[exports] removing the files of deleted workshop ${workshopId} failed`, err);
  }
}

/**
 * Exports are kept as long as a link made for them works (7 days): older ones, files included,
 * are removed and logged as `removeExport` by nobody. Returns how many went.
 */
export async function pruneOldExports(deps: AppDeps, now = Date.now()): Promise<number> {
  const { db } = deps.database;
  const cutoff = new Date(now - LINK_TTL_SECONDS * 1000).toISOString();
  const old = await exportsCreatedBefore(db, cutoff, 100);
  const files: FileRef[] = [];
  for (const row of old) {
    await writeWorkshop(deps, row.workshopId, async (tx, changes) => {
      const deleted = await deleteExportRow(tx, row.id);
      if (!deleted) return;
      const file = exportFile(row);
      if (file) {
        await deleteFileRow(tx, file);
        files.push(file);
      }
      changes.record({
        workshopId: row.workshopId,
        action: 'removeExport',
        userId: null,
        change: { export: toExport(deps.config, row) },
      });
    });
  }
  for (const file of files) await removeBlob(deps.files, file);
  return old.length;
}

/**
 * Records what the worker made of a pending export: the file (written by the worker under
 * `file`) becomes a `files` row and the export `success`, or the export becomes `failed`. An
 * export deleted (or finished by another instance) meanwhile keeps its state, and a file made
 * for it is removed.
 */
export async function finishExport(
  deps: AppDeps,
  taken: ExportRow,
  file: FileRef,
  outcome: ExportOutcome,
): Promise<void> {
  const kept = await writeWorkshop(deps, taken.workshopId, async (tx, changes) => {
    const before = await pendingExport(tx, taken.id);
    if (!before) return false;
    const title = await workshopTitle(tx, before.workshopId);
    if (title === undefined) return false;
    const now = nowIso();
    let after: ExportRow;
    if (outcome.ok) {
      await recordFile(tx, file, {
        userId: before.requestedBy,
        name: `${fileBaseName(title)}.${outcome.extension}`,
        mimetype: outcome.mimetype,
        size: outcome.size,
      });
      after = await markExportMade(tx, before.id, file, now);
    } else {
      after = await markExportFailed(tx, before.id, outcome.message, now);
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
  if (outcome.ok && !kept) await removeBlob(deps.files, file);
}

async function findExport(db: Db, workshopId: string, exportId: string): Promise<ExportRow> {
  const row = await exportOf(db, workshopId, exportId);
  if (!row) throw notFound('export');
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
