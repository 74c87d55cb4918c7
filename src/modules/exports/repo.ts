import { and, asc, count, desc, eq, isNull, lt, or, sql } from 'drizzle-orm';
import { tablesOf, type Db } from '../../db/database';
import { forUpdate } from '../../db/sql';
import { creationOrder } from '../../db/creation-order';
import { inList } from '../../db/sql';
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

/**
 * Every row of a workshop an export shows, in the order the exports list them: the agenda and
 * the workshop's criteria and sections by position, feedback oldest first, zones in canvas order.
 * Call it on a snapshot (`Database.snapshot`) so the rows are one moment of the workshop.
 */
export async function exportRowsOf(db: Db, workshopId: string) {
  const { canvases, cards, comments, criteria, items, ratings, sections, steps, votes, workshops, zones } =
    tablesOf(db);
  const [workshop] = await db.select().from(workshops).where(eq(workshops.id, workshopId));
  if (!workshop) return null;
  const [canvas = null] = await db.select().from(canvases).where(eq(canvases.workshopId, workshopId));
  return {
    workshop,
    steps: await db.select().from(steps).where(eq(steps.workshopId, workshopId)).orderBy(asc(steps.position)),
    criteria: await db
      .select()
      .from(criteria)
      .where(eq(criteria.workshopId, workshopId))
      .orderBy(asc(criteria.position)),
    sections: await db
      .select()
      .from(sections)
      .where(eq(sections.workshopId, workshopId))
      .orderBy(asc(sections.position)),
    cards: await db
      .select()
      .from(cards)
      .where(eq(cards.workshopId, workshopId))
      .orderBy(asc(cards.position), asc(cards.number)),
    votes: await db
      .select()
      .from(votes)
      .where(eq(votes.workshopId, workshopId))
      .orderBy(asc(votes.createdAt), asc(votes.id)),
    ratings: await db
      .select()
      .from(ratings)
      .where(eq(ratings.workshopId, workshopId))
      .orderBy(asc(ratings.createdAt), asc(ratings.id)),
    items: await db
      .select()
      .from(items)
      .where(eq(items.workshopId, workshopId))
      .orderBy(asc(items.createdAt), asc(items.id)),
    comments: await db
      .select()
      .from(comments)
      .where(eq(comments.workshopId, workshopId))
      .orderBy(asc(comments.createdAt), asc(comments.id)),
    canvas,
    zones: canvas
      ? await db
          .select()
          .from(zones)
          .where(eq(zones.canvasId, canvas.id))
          .orderBy(asc(zones.position), asc(zones.createdAt))
      : [],
  };
}

/** The workshop's members with their names, in the order they joined. */
export function membersWithNames(db: Db, workshopId: string) {
  const { users, workshopMembers } = tablesOf(db);
  return db
    .select({ userId: workshopMembers.userId, role: workshopMembers.role, name: users.name, guest: users.guest })
    .from(workshopMembers)
    .innerJoin(users, eq(users.id, workshopMembers.userId))
    .where(eq(workshopMembers.workshopId, workshopId))
    .orderBy(asc(workshopMembers.createdAt), asc(creationOrder(workshopMembers)));
}

/** Names of these users, and whether their account is deleted (its row stays for what it cast). */
export async function namesOfUsers(
  db: Db,
  ids: Iterable<string>,
): Promise<Array<{ id: string; name: string; guest: boolean; deleted: boolean }>> {
  const list = [...new Set(ids)];
  if (list.length === 0) return [];
  const { users } = tablesOf(db);
  const rows = await db
    .select({ id: users.id, name: users.name, guest: users.guest, deletedAt: users.deletedAt })
    .from(users)
    .where(inList(db, users.id, list));
  return rows.map(({ deletedAt, ...row }) => ({ ...row, deleted: deletedAt !== null }));
}

/**
 * The workshop's stored Yjs document as the updates it is made of: the stored snapshot (if any),
 * then the updates stored after it, in order. None when it was never stored.
 */
export async function storedDocumentParts(db: Db, workshopId: string): Promise<Uint8Array[]> {
  const { yjsDocuments, yjsUpdates } = tablesOf(db);
  const [snapshot] = await db
    .select({ state: yjsDocuments.state })
    .from(yjsDocuments)
    .where(eq(yjsDocuments.workshopId, workshopId));
  const updates = await db
    .select({ update: yjsUpdates.update })
    .from(yjsUpdates)
    .where(eq(yjsUpdates.workshopId, workshopId))
    .orderBy(asc(yjsUpdates.id));
  return [...(snapshot ? [snapshot.state] : []), ...updates.map((row) => row.update)].map(
    (part) => new Uint8Array(part),
  );
}
