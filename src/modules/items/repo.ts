import { and, asc, eq, sql } from 'drizzle-orm';
import type { Db } from '../../db/client';
import { items, sections } from '../../db/schema/index';
import type { ItemRow } from './schemas';

/** A card's items in the order they were added, optionally of one section. */
export function listItems(db: Db, cardId: string, sectionId?: string): ItemRow[] {
  return db
    .select()
    .from(items)
    .where(and(eq(items.cardId, cardId), sectionId === undefined ? undefined : eq(items.sectionId, sectionId)))
    .orderBy(asc(items.createdAt), asc(sql`rowid`))
    .all();
}

export function findItem(db: Db, cardId: string, id: string): ItemRow | undefined {
  return db.select().from(items).where(and(eq(items.id, id), eq(items.cardId, cardId))).get();
}

export function sectionExists(db: Db, workshopId: string, sectionId: string): boolean {
  return db.select({ id: sections.id }).from(sections).where(and(eq(sections.id, sectionId), eq(sections.workshopId, workshopId))).get() !== undefined;
}

export function insertItem(db: Db, values: typeof items.$inferInsert): ItemRow {
  return db.insert(items).values(values).returning().get();
}

export function updateItemContent(db: Db, id: string, content: string, now: string): ItemRow {
  return db.update(items).set({ content, updatedAt: now }).where(eq(items.id, id)).returning().get()!;
}

export function deleteItem(db: Db, id: string): void {
  db.delete(items).where(eq(items.id, id)).run();
}
