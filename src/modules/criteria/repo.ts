import { and, eq } from 'drizzle-orm';
import { nowIso } from '../../db/columns';
import { tablesOf, type Db } from '../../db/database';
import { arrange, type ListChange } from '../../db/positions';
import type { CriterionRow } from './schemas';

export async function criterionRowOf(db: Db, workshopId: string, id: string): Promise<CriterionRow | undefined> {
  const { criteria } = tablesOf(db);
  const [row] = await db
    .select()
    .from(criteria)
    .where(and(eq(criteria.id, id), eq(criteria.workshopId, workshopId)));
  return row;
}

/** Keeps the workshop's criterion positions at 0..n-1 through the change (`arrange`). */
export function arrangeCriteria(tx: Db, workshopId: string, change: ListChange): Promise<number> {
  const { criteria } = tablesOf(tx);
  return arrange(tx, criteria, eq(criteria.workshopId, workshopId), change);
}

export async function insertCriterion(
  tx: Db,
  values: { id: string; workshopId: string; title: string; scale: number; position: number },
): Promise<CriterionRow> {
  const { criteria } = tablesOf(tx);
  const [row] = await tx.insert(criteria).values(values).returning();
  return row!;
}

export async function renameCriterion(tx: Db, id: string, title: string): Promise<CriterionRow> {
  const { criteria } = tablesOf(tx);
  const [row] = await tx.update(criteria).set({ title, updatedAt: nowIso() }).where(eq(criteria.id, id)).returning();
  return row!;
}

export async function deleteCriterionRow(tx: Db, id: string): Promise<void> {
  const { criteria } = tablesOf(tx);
  await tx.delete(criteria).where(eq(criteria.id, id));
}
