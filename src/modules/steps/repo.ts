import { and, asc, eq } from 'drizzle-orm';
import { nowIso } from '../../db/columns';
import { tablesOf, type Db, type Schema } from '../../db/database';
import { arrange, type ListChange } from '../../db/positions';
import type { IllustrationRow, StepRow } from './schemas';

export async function stepOf(db: Db, workshopId: string, stepId: string): Promise<StepRow | undefined> {
  const { steps } = tablesOf(db);
  const [row] = await db
    .select()
    .from(steps)
    .where(and(eq(steps.id, stepId), eq(steps.workshopId, workshopId)));
  return row;
}

/** The workshop's steps in position order. */
export async function stepsOf(db: Db, workshopId: string): Promise<StepRow[]> {
  const { steps } = tablesOf(db);
  return db.select().from(steps).where(eq(steps.workshopId, workshopId)).orderBy(asc(steps.position), asc(steps.id));
}

/** Keeps the workshop's step positions at 0..n-1 through the change (`arrange`). */
export function arrangeSteps(tx: Db, workshopId: string, change: ListChange): Promise<number> {
  const { steps } = tablesOf(tx);
  return arrange(tx, steps, eq(steps.workshopId, workshopId), change);
}

type StepFields = Pick<StepRow, 'name' | 'instructions' | 'position' | 'prefs' | 'view'>;

export async function insertStep(tx: Db, values: StepFields & { id: string; workshopId: string }): Promise<StepRow> {
  const { steps } = tablesOf(tx);
  const [row] = await tx.insert(steps).values(values).returning();
  return row!;
}

export async function updateStepRow(tx: Db, stepId: string, fields: StepFields): Promise<StepRow> {
  const { steps } = tablesOf(tx);
  const [row] = await tx
    .update(steps)
    .set({ ...fields, updatedAt: nowIso() })
    .where(eq(steps.id, stepId))
    .returning();
  return row!;
}

export async function deleteStepRow(tx: Db, stepId: string): Promise<void> {
  const { steps } = tablesOf(tx);
  await tx.delete(steps).where(eq(steps.id, stepId));
}

/** The workshop has no current step any more; answers its row. */
export async function clearCurrentStep(tx: Db, workshopId: string): Promise<Schema['workshops']['$inferSelect']> {
  const { workshops } = tablesOf(tx);
  const [workshop] = await tx
    .update(workshops)
    .set({ currentStepId: null, updatedAt: nowIso() })
    .where(eq(workshops.id, workshopId))
    .returning();
  return workshop!;
}

export async function illustrationOf(db: Db, stepId: string): Promise<IllustrationRow | undefined> {
  const { stepIllustrations } = tablesOf(db);
  const [row] = await db.select().from(stepIllustrations).where(eq(stepIllustrations.stepId, stepId));
  return row;
}

export async function insertIllustration(
  tx: Db,
  values: Pick<IllustrationRow, 'stepId' | 'workshopId' | 'name' | 'align' | 'fileKey' | 'container' | 'mimetype'>,
): Promise<IllustrationRow> {
  const { stepIllustrations } = tablesOf(tx);
  const [row] = await tx.insert(stepIllustrations).values(values).returning();
  return row!;
}

export async function updateIllustrationRow(
  tx: Db,
  id: string,
  fields: Pick<IllustrationRow, 'align' | 'name'>,
): Promise<IllustrationRow> {
  const { stepIllustrations } = tablesOf(tx);
  const [row] = await tx
    .update(stepIllustrations)
    .set({ ...fields, updatedAt: nowIso() })
    .where(eq(stepIllustrations.id, id))
    .returning();
  return row!;
}

export async function deleteIllustrationRow(tx: Db, id: string): Promise<void> {
  const { stepIllustrations } = tablesOf(tx);
  await tx.delete(stepIllustrations).where(eq(stepIllustrations.id, id));
}
