import { eq } from 'drizzle-orm';
import { tablesOf, type Db } from '../../db/database';
import type { View } from '../../domain/view';
import type { StepRow } from './repo';
import type { WorkshopRow } from '../access/load';

/* Queries of the views a workshop and its steps hold (`view-references.ts` clears them). */

/** Every step of the workshop, in no particular order. */
export function stepsOfWorkshop(tx: Db, workshopId: string): Promise<StepRow[]> {
  const { steps } = tablesOf(tx);
  return tx.select().from(steps).where(eq(steps.workshopId, workshopId));
}

/** Writes the workshop's view: its row after. */
export async function setWorkshopView(tx: Db, workshopId: string, view: View, at: string): Promise<WorkshopRow> {
  const { workshops } = tablesOf(tx);
  const [after] = await tx
    .update(workshops)
    .set({ view, updatedAt: at })
    .where(eq(workshops.id, workshopId))
    .returning();
  return after!;
}

/** Writes the step's view: its row after. */
export async function setStepView(tx: Db, stepId: string, view: View, at: string): Promise<StepRow> {
  const { steps } = tablesOf(tx);
  const [after] = await tx.update(steps).set({ view, updatedAt: at }).where(eq(steps.id, stepId)).returning();
  return after!;
}
