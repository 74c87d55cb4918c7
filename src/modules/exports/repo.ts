import { and, asc, count, desc, eq, isNull, lt, or, sql } from 'drizzle-orm';
import { tablesOf, type Db } from '../../db/database';
import { forUpdate } from '../../db/sql';
import type { FileRef } from '../uploads/storage';
import type { ExportRow } from './schemas';

export async function pendingExportsOfWorkshop(tx: Db, workshopId: string): Promise<number> {
  const { workshopExports } = tablesOf(tx);
  const [row] = await tx
    .select({ n: count() })
    .from(workshopExports)
    .where(and(eq(workshopExports.state, 'pending'), eq(workshopExports.workshopId, workshopId)));
  return row!.n;
}

/** Across every workshop: the exports the user asked for that are still being made. */
export async function pendingExportsRequestedBy(tx: Db, userId: string): Promise<number> {
  const { workshopExports } = tablesOf(tx);
  const [row] = await tx
    .select({ n: count() })
    .from(workshopExports)
    .where(and(eq(workshopExports.state, 'pending'), eq(workshopExports.requestedBy, userId)));
  return row!.n;
}

export async function insertExport(
  tx: Db,
  values: { workshopId: string; type: ExportRow['type']; requestedBy: string },
): Promise<ExportRow> {
  const { workshopExports } = tablesOf(tx);
  return (await tx.insert(workshopExports).values(values).returning())[0]!;
}

/** The workshop's exports, newest first. */
export async function exportsOf(db: Db, workshopId: string): Promise<ExportRow[]> {
  const { workshopExports } = tablesOf(db);
  return db
    .select()
    .from(workshopExports)
    .where(eq(workshopExports.workshopId, workshopId))
    .orderBy(desc(workshopExports.createdAt), desc(workshopExports.id));
}

export async function exportOf(db: Db, workshopId: string, exportId: string): Promise<ExportRow | undefined> {
  const { workshopExports } = tablesOf(db);
  const [row] = await db
    .select()
    .from(workshopExports)
    .where(and(eq(workshopExports.id, exportId), eq(workshopExports.workshopId, workshopId)));
  return row;
}

/** Deletes the export; answers its row, or undefined when it was already gone. */
export async function deleteExportRow(tx: Db, exportId: string): Promise<ExportRow | undefined> {
  const { workshopExports } = tablesOf(tx);
  const [deleted] = await tx.delete(workshopExports).where(eq(workshopExports.id, exportId)).returning();
  return deleted;
}

export async function exportFilesOfWorkshop(
  tx: Db,
  workshopId: string,
): Promise<Pick<ExportRow, 'fileContainer' | 'fileKey'>[]> {
  const { workshopExports } = tablesOf(tx);
  return tx
    .select({ fileContainer: workshopExports.fileContainer, fileKey: workshopExports.fileKey })
    .from(workshopExports)
    .where(eq(workshopExports.workshopId, workshopId));
}

/** Up to `limit` exports created before `cutoff`. */
export async function exportsCreatedBefore(db: Db, cutoff: string, limit: number): Promise<ExportRow[]> {
  const { workshopExports } = tablesOf(db);
  return db.select().from(workshopExports).where(lt(workshopExports.createdAt, cutoff)).limit(limit);
}

export async function pendingExport(tx: Db, exportId: string): Promise<ExportRow | undefined> {
  const { workshopExports } = tablesOf(tx);
  const [row] = await tx
    .select()
    .from(workshopExports)
    .where(and(eq(workshopExports.id, exportId), eq(workshopExports.state, 'pending')));
  return row;
}

export async function workshopTitle(tx: Db, workshopId: string): Promise<string | undefined> {
  const { workshops } = tablesOf(tx);
  const [workshop] = await tx.select({ title: workshops.title }).from(workshops).where(eq(workshops.id, workshopId));
  return workshop?.title;
}

export async function markExportMade(tx: Db, exportId: string, file: FileRef, at: string): Promise<ExportRow> {
  const { workshopExports } = tablesOf(tx);
  return (
    await tx
      .update(workshopExports)
      .set({ state: 'success', fileContainer: file.container, fileKey: file.key, leaseUntil: null, updatedAt: at })
      .where(eq(workshopExports.id, exportId))
      .returning()
  )[0]!;
}

export async function markExportFailed(tx: Db, exportId: string, message: string, at: string): Promise<ExportRow> {
  const { workshopExports } = tablesOf(tx);
  return (
    await tx
      .update(workshopExports)
      .set({ state: 'failed', message, leaseUntil: null, updatedAt: at })
      .where(eq(workshopExports.id, exportId))
      .returning()
  )[0]!;
}

/**
 * Takes the oldest pending export whose lease ran out by `now` (or that has none), leasing it for
 * `leaseMs` and counting the attempt; null when there is none. Instances taking exports at the
 * same time pass over each other's (SKIP LOCKED): each is rendered once.
 */
export async function takePendingExport(tx: Db, now: string, leaseMs: number): Promise<ExportRow | null> {
  const { workshopExports } = tablesOf(tx);
  const [row] = await forUpdate(
    tx,
    tx
      .select()
      .from(workshopExports)
      .where(
        and(
          eq(workshopExports.state, 'pending'),
          or(isNull(workshopExports.leaseUntil), lt(workshopExports.leaseUntil, now)),
        ),
      )
      .orderBy(asc(workshopExports.createdAt))
      .limit(1),
    { skipLocked: true },
  );
  if (!row) return null;
  const [taken] = await tx
    .update(workshopExports)
    .set({
      leaseUntil: new Date(Date.now() + leaseMs).toISOString(),
      attempts: sql`${workshopExports.attempts} + 1`,
    })
    .where(eq(workshopExports.id, row.id))
    .returning();
  return taken ?? null;
}
