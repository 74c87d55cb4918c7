import { and, asc, eq } from 'drizzle-orm';
import type { DbOrTx } from '../../db/client';
import { newId, nowIso } from '../../db/columns';
import { arrange } from '../../db/positions';
import { steps, workshops } from '../../db/schema/index';
import type { AppDeps } from '../../deps';
import { notFound } from '../../http/errors';
import { diffFields, write } from '../events/recorder';
import { authorize, DEFAULT_PREFS } from '../access/rules';
import { loadAccess } from '../access/load';
import { workshopForEvent } from '../workshops/output';
import { assertViewReferences } from '../workshops/repo';
import { assertSortable, DEFAULT_VIEW, mergeView } from '../workshops/view';
import { mergePrefs } from './prefs';
import { toStep, type StepInput, type StepOutput, type StepRow } from './schemas';

const STEP_FIELDS = ['name', 'instructions', 'position', 'prefs', 'view'] as const;

/** The step with this id in this workshop; a step of another workshop is as missing as an unknown id. */
export function findStep(db: DbOrTx, workshopId: string, stepId: string): StepRow {
  const row = db.select().from(steps).where(and(eq(steps.id, stepId), eq(steps.workshopId, workshopId))).get();
  if (!row) throw notFound('Step');
  return row;
}

const inWorkshop = (workshopId: string) => eq(steps.workshopId, workshopId);

export function listSteps(deps: AppDeps, workshopId: string, userId: string): StepOutput[] {
  const { db } = deps.database;
  loadAccess(db, workshopId, userId);
  return db.select().from(steps).where(inWorkshop(workshopId)).orderBy(asc(steps.position), asc(steps.id)).all().map(toStep);
}

export function getStep(deps: AppDeps, workshopId: string, userId: string, stepId: string): StepOutput {
  const { db } = deps.database;
  loadAccess(db, workshopId, userId);
  return toStep(findStep(db, workshopId, stepId));
}

export function createStep(deps: AppDeps, workshopId: string, userId: string, input: StepInput): StepOutput {
  return write(deps, (tx, changes) => {
    authorize(loadAccess(deps.database.db, workshopId, userId), 'facilitate');
    assertViewReferences(tx, workshopId, input.view);
    assertSortable(mergeView(DEFAULT_VIEW, input.view), input.view);
    const id = newId();
    const position = arrange(tx, steps, inWorkshop(workshopId), { insert: { id, position: input.position } });
    const row = tx
      .insert(steps)
      .values({
        id,
        workshopId,
        position,
        name: input.name,
        instructions: input.instructions ?? '',
        prefs: mergePrefs(DEFAULT_PREFS, input.prefs),
        view: mergeView(DEFAULT_VIEW, input.view),
      })
      .returning()
      .get();
    const step = toStep(row);
    changes.record({ workshopId, action: 'addStep', userId, change: { step } });
    return step;
  });
}

/**
 * Applies the given members over the step; prefs and view are merged member by member. An update
 * that changes nothing writes nothing and logs nothing.
 */
export function updateStep(deps: AppDeps, workshopId: string, userId: string, stepId: string, input: StepInput): StepOutput {
  return write(deps, (tx, changes) => {
    authorize(loadAccess(deps.database.db, workshopId, userId), 'facilitate');
    assertViewReferences(tx, workshopId, input.view);
    const before = toStep(findStep(tx, workshopId, stepId));
    const position =
      input.position === undefined
        ? before.position
        : arrange(tx, steps, inWorkshop(workshopId), { insert: { id: stepId, position: input.position } });
    const wanted = {
      ...before,
      name: input.name,
      instructions: input.instructions ?? before.instructions,
      position,
      prefs: mergePrefs(before.prefs, input.prefs),
      view: mergeView(before.view, input.view),
    };
    assertSortable(wanted.view, input.view);
    const diff = diffFields(before, wanted, STEP_FIELDS);
    if (Object.keys(diff).length === 0) return before;
    const row = tx
      .update(steps)
      .set({ name: wanted.name, instructions: wanted.instructions, position, prefs: wanted.prefs, view: wanted.view, updatedAt: nowIso() })
      .where(eq(steps.id, stepId))
      .returning()
      .get()!;
    const step = toStep(row);
    changes.record({ workshopId, action: 'updateStep', userId, change: { step, changes: diff } });
    return step;
  });
}

/** Removes the step and closes the gap; a workshop whose current step it was has no current step any more. */
export function deleteStep(deps: AppDeps, workshopId: string, userId: string, stepId: string): void {
  write(deps, (tx, changes) => {
    const access = loadAccess(deps.database.db, workshopId, userId);
    authorize(access, 'facilitate');
    const step = toStep(findStep(tx, workshopId, stepId));
    arrange(tx, steps, inWorkshop(workshopId), { remove: stepId });
    tx.delete(steps).where(eq(steps.id, stepId)).run();
    changes.record({ workshopId, action: 'removeStep', userId, change: { step } });
    if (access.workshop.currentStepId === stepId) {
      // The workshop has no current step any more: screens must learn it like any step change.
      const workshop = tx.update(workshops).set({ currentStepId: null, updatedAt: nowIso() }).where(eq(workshops.id, workshopId)).returning().get()!;
      changes.record({ workshopId, action: 'changeStep', userId, change: { workshop: workshopForEvent(deps.database.db, deps.config, workshop), step: null } });
    }
  });
}
