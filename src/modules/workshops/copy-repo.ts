import { asc, eq } from 'drizzle-orm';
import { tablesOf, type Db, type Schema } from '../../db/database';
import { insertChunked } from '../../db/prepared';
import { inList } from '../../db/sql';

/*
 * Queries of making a workshop out of another (`create-from.ts`: a copy, a template) or out of a
 * native file (`rebuild-native.ts`): the source's rows, and the new workshop's rows written in bulk.
 */

/** The tables a new workshop's rows are written to in bulk. */
type WorkshopTable = 'steps' | 'criteria' | 'sections' | 'cards' | 'votes' | 'ratings' | 'items' | 'comments' | 'zones';

/** Inserts rows of one of a new workshop's tables, `insertChunked`'s chunks a statement each. */
export async function insertRowsOf<T extends WorkshopTable>(
  tx: Db,
  table: T,
  rows: Array<Schema[T]['$inferInsert']>,
): Promise<void> {
  await insertChunked(tx, tablesOf(tx)[table], rows);
}

/** Inserts the new workshop's canvas. */
export async function insertCanvasRow(
  tx: Db,
  values: Schema['canvases']['$inferInsert'],
): Promise<Schema['canvases']['$inferSelect']> {
  const { canvases } = tablesOf(tx);
  const [canvas] = await tx.insert(canvases).values(values).returning();
  return canvas!;
}

/** The workshop's steps, by position. */
export function stepsByPosition(tx: Db, workshopId: string): Promise<Array<Schema['steps']['$inferSelect']>> {
  const { steps } = tablesOf(tx);
  return tx.select().from(steps).where(eq(steps.workshopId, workshopId)).orderBy(asc(steps.position));
}

/** The workshop's criteria, in no particular order. */
export function criteriaOfWorkshop(tx: Db, workshopId: string): Promise<Array<Schema['criteria']['$inferSelect']>> {
  const { criteria } = tablesOf(tx);
  return tx.select().from(criteria).where(eq(criteria.workshopId, workshopId));
}

/** The workshop's sections, in no particular order. */
export function sectionsOfWorkshop(tx: Db, workshopId: string): Promise<Array<Schema['sections']['$inferSelect']>> {
  const { sections } = tablesOf(tx);
  return tx.select().from(sections).where(eq(sections.workshopId, workshopId));
}

/** Every card of the workshop, by position (clusters and ideas alike). */
export function cardsByPosition(tx: Db, workshopId: string): Promise<Array<Schema['cards']['$inferSelect']>> {
  const { cards } = tablesOf(tx);
  return tx.select().from(cards).where(eq(cards.workshopId, workshopId)).orderBy(asc(cards.position), asc(cards.id));
}

/** The ids among `ids` that are users' of this service. */
export async function existingUserIds(tx: Db, ids: readonly string[]): Promise<string[]> {
  const { users } = tablesOf(tx);
  return (
    await tx
      .select({ id: users.id })
      .from(users)
      .where(inList(tx, users.id, ids))
  ).map((row) => row.id);
}
