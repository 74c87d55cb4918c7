import { and, eq } from 'drizzle-orm';
import { nowIso } from '../../db/columns';
import { tablesOf, type Db } from '../../db/database';
import { arrange, type ListChange } from '../../db/positions';
import type { SectionRow } from './schemas';

export async function sectionOf(db: Db, workshopId: string, id: string): Promise<SectionRow | undefined> {
  const { sections } = tablesOf(db);
  const [row] = await db
    .select()
    .from(sections)
    .where(and(eq(sections.id, id), eq(sections.workshopId, workshopId)));
  return row;
}

/** Keeps the workshop's section positions at 0..n-1 through the change (`arrange`). */
export function arrangeSections(tx: Db, workshopId: string, change: ListChange): Promise<number> {
  const { sections } = tablesOf(tx);
  return arrange(tx, sections, eq(sections.workshopId, workshopId), change);
}

export async function insertSection(
  tx: Db,
  values: { id: string; workshopId: string; title: string; position: number },
): Promise<SectionRow> {
  const { sections } = tablesOf(tx);
  const [row] = await tx.insert(sections).values(values).returning();
  return row!;
}

export async function renameSection(tx: Db, id: string, title: string): Promise<SectionRow> {
  const { sections } = tablesOf(tx);
  const [row] = await tx.update(sections).set({ title, updatedAt: nowIso() }).where(eq(sections.id, id)).returning();
  return row!;
}

export async function deleteSectionRow(tx: Db, id: string): Promise<void> {
  const { sections } = tablesOf(tx);
  await tx.delete(sections).where(eq(sections.id, id));
}
