import { and, asc, eq } from 'drizzle-orm';
import { tablesOf, type Db, type Schema } from '../../db/database';
import type { ItemRow } from './schemas';
import { creationOrder } from '../../db/creation-order';

/** A card's items in the order they were added, optionally of one section. */
export function listItems(db: Db, cardId: string, sectionId?: string): Promise<ItemRow[]> {
  const { items } = tablesOf(db);
  return db
    .select()
    .from(items)
    .where(and(eq(items.cardId, cardId), sectionId === undefined ? undefined : eq(items.sectionId, sectionId)))
    .orderBy(asc(items.createdAt), asc(creationOrder(items)));
}

export async function findItem(db: Db, cardId: string, id: string): Promise<ItemRow | undefined> {
  const { items } = tablesOf(db);
  const [row] = await db
    .select()
    .from(items)
    .where(and(eq(items.id, id), eq(items.cardId, cardId)));
  return row;
}

export async function sectionExists(db: Db, workshopId: string, sectionId: string): Promise<boolean> {
  const { sections } = tablesOf(db);
  const [row] = await db
    .select({ id: sections.id })
    .from(sections)
    .where(and(eq(sections.id, sectionId), eq(sections.workshopId, workshopId)));
  return row !== undefined;
}

export async function insertItem(db: Db, values: Schema['items']['$inferInsert']): Promise<ItemRow> {
  const { items } = tablesOf(db);
  const [row] = await db.insert(items).values(values).returning();
  return row!;
}

export async function updateItemContent(db: Db, id: string, content: string, now: string): Promise<ItemRow> {
  const { items } = tablesOf(db);
  const [row] = await db.update(items).set({ content, updatedAt: now }).where(eq(items.id, id)).returning();
  return row!;
}

export async function deleteItem(db: Db, id: string): Promise<void> {
  const { items } = tablesOf(db);
  await db.delete(items).where(eq(items.id, id));
}
