import type { Db } from '../../db/database';
import { newId } from '../../db/columns';
import type { AppDeps } from '../../deps';
import { notFound } from '../../http/errors';
import { writeWorkshop } from '../../db/write';
import { diffFields } from '../../domain/events';
import { authorize } from '../access/rules';
import { DEFAULT_PREFS } from '../../domain/permissions';
import { loadAccess } from '../access/load';
import type { Caller } from '../../domain/permissions';
import { cardsVisibleMoved } from '../access/visibility';
import { workshopForEvent } from '../workshops/output';
import { assertViewReferences, illustratedStepIds } from '../workshops/repo';
import { assertSortable } from '../workshops/view';
import { DEFAULT_VIEW, mergeView } from '../../domain/view';
import { mergePrefs } from '../../domain/prefs';
import {
  arrangeSteps,
  clearCurrentStep,
  deleteStepRow,
  insertStep,
  stepOf,
  stepsOf,
  updateStepRow,
  illustrationOf,
} from './repo';
import type { StepInput, StepRow } from './schemas';
import { toStep } from '../../domain/steps';
import type { StepOutput } from '../../domain/steps';

const STEP_FIELDS = ['name', 'instructions', 'position', 'prefs', 'view'] as const;

/** The step with this id in this workshop; a step of another workshop is as missing as an unknown id. */
export async function findStep(db: Db, workshopId: string, stepId: string): Promise<StepRow> {
  const row = await stepOf(db, workshopId, stepId);
  if (!row) throw notFound('step');
  return row;
}

export async function listSteps(deps: AppDeps, workshopId: string, caller: Caller): Promise<StepOutput[]> {
  const { db } = deps.database;
  await loadAccess(db, workshopId, caller);
  const illustrated = await illustratedStepIds(db, workshopId);
  return (await stepsOf(db, workshopId)).map((row) => toStep(row, illustrated.has(row.id)));
}

export async function getStep(deps: AppDeps, workshopId: string, caller: Caller, stepId: string): Promise<StepOutput> {
  const { db } = deps.database;
  await loadAccess(db, workshopId, caller);
  return stepOutput(db, await findStep(db, workshopId, stepId));
}

/** The step as the API answers it, with whether it has an illustration. */
async function stepOutput(db: Db, row: StepRow): Promise<StepOutput> {
  return toStep(row, (await illustrationOf(db, row.id)) !== undefined);
}

export function createStep(deps: AppDeps, workshopId: string, caller: Caller, input: StepInput): Promise<StepOutput> {
  return writeWorkshop(deps, workshopId, async (tx, changes) => {
    authorize(await loadAccess(tx, workshopId, caller), 'facilitate');
    await assertViewReferences(tx, workshopId, input.view);
    assertSortable(mergeView(DEFAULT_VIEW, input.view), input.view);
    const id = newId();
    const position = await arrangeSteps(tx, workshopId, { insert: { id, position: input.position } });
    const row = await insertStep(tx, {
      id,
      workshopId,
      position,
      name: input.name,
      instructions: input.instructions ?? '',
      prefs: mergePrefs(DEFAULT_PREFS, input.prefs),
      view: mergeView(DEFAULT_VIEW, input.view),
    });
    const step = toStep(row, false);
    changes.record({ workshopId, action: 'addStep', userId: caller.id, change: { step } });
    return step;
  });
}

/**
 * Applies the given members over the step; prefs and view are merged member by member. An update
 * that changes nothing writes nothing and logs nothing.
 */
export function updateStep(
  deps: AppDeps,
  workshopId: string,
  caller: Caller,
  stepId: string,
  input: StepInput,
): Promise<StepOutput> {
  return writeWorkshop(deps, workshopId, async (tx, changes) => {
    const access = await loadAccess(tx, workshopId, caller);
    authorize(access, 'facilitate');
    await assertViewReferences(tx, workshopId, input.view);
    const before = await stepOutput(tx, await findStep(tx, workshopId, stepId));
    const position =
      input.position === undefined
        ? before.position
        : await arrangeSteps(tx, workshopId, { insert: { id: stepId, position: input.position } });
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
    const row = await updateStepRow(tx, stepId, {
      name: wanted.name,
      instructions: wanted.instructions,
      position,
      prefs: wanted.prefs,
      view: wanted.view,
    });
    const step = toStep(row, before.has_illustration);
    // Editing the current step's prefs can reveal or hide cards as a step change does.
    const moved = access.workshop.currentStepId === stepId ? cardsVisibleMoved(before.prefs, step.prefs) : {};
    changes.record({ workshopId, action: 'updateStep', userId: caller.id, change: { step, changes: diff, ...moved } });
    return step;
  });
}

/** Removes the step and closes the gap; a workshop whose current step it was has no current step any more. */
export async function deleteStep(deps: AppDeps, workshopId: string, caller: Caller, stepId: string): Promise<void> {
  await writeWorkshop(deps, workshopId, async (tx, changes) => {
    const access = await loadAccess(tx, workshopId, caller);
    authorize(access, 'facilitate');
    const step = await stepOutput(tx, await findStep(tx, workshopId, stepId));
    await arrangeSteps(tx, workshopId, { remove: stepId });
    await deleteStepRow(tx, stepId);
    changes.record({ workshopId, action: 'removeStep', userId: caller.id, change: { step } });
    if (access.workshop.currentStepId === stepId) {
      // The workshop has no current step any more: screens must learn it like any step change.
      const workshop = await clearCurrentStep(tx, workshopId);
      const moved = cardsVisibleMoved(access.prefs, DEFAULT_PREFS);
      changes.record({
        workshopId,
        action: 'changeStep',
        userId: caller.id,
        change: { workshop: await workshopForEvent(tx, deps.config, workshop), step: null, ...moved },
      });
    }
  });
}
