import type { Config } from '../../config';
import type { Db } from '../../db/database';
import { nowIso } from '../../db/columns';
import type { ChangeRecorder } from '../../domain/recorder';
import { toStep } from '../../domain/steps';
import { workshopForEvent } from './output';
import { DEFAULT_VIEW, mergeView, type View } from '../../domain/view';
import { findWorkshop, illustratedStepIds } from './repo';
import { setStepView, setWorkshopView, stepsOfWorkshop } from './views-repo';

/** What was removed from a workshop that views may point at. */
export interface RemovedReferences {
  cardIds?: readonly string[];
  criterionId?: string;
}

/** The view without the removed references, or null when it pointed at none of them. */
function withoutReferences(stored: View, removed: RemovedReferences): View | null {
  const view = mergeView(DEFAULT_VIEW, stored);
  const cardIds = new Set(removed.cardIds ?? []);
  let changed = false;
  if (view.card && cardIds.has(view.card)) {
    view.card = null;
    changed = true;
  }
  const shown = view.show_cluster_ids.filter((id) => !cardIds.has(id));
  if (shown.length !== view.show_cluster_ids.length) {
    view.show_cluster_ids = shown;
    changed = true;
  }
  if (removed.criterionId && view.sort_criterium_id === removed.criterionId) {
    // A view sorted by a deleted criterion falls back to the plain order.
    view.sort_criterium_id = null;
    if (view.sort === 'criterium_average') view.sort = 'position';
    changed = true;
  }
  return changed ? view : null;
}

/**
 * Clears the workshop's and its steps' views of cards or a criterion being deleted, in the same
 * transaction, logging `updateWorkshop` / `updateStep` for each view that changed, so no view is
 * left pointing at nothing.
 */
export async function unhookViewReferences(
  deps: { config: Config },
  tx: Db,
  changes: ChangeRecorder,
  target: { workshopId: string; caller: { id: string } },
  removed: RemovedReferences,
): Promise<void> {
  const { workshopId } = target;
  const userId = target.caller.id;
  const workshop = await findWorkshop(tx, workshopId);
  if (!workshop) return;
  const now = nowIso();
  const view = withoutReferences(workshop.view, removed);
  if (view) {
    const after = await setWorkshopView(tx, workshopId, view, now);
    changes.record({
      workshopId,
      action: 'updateWorkshop',
      userId,
      change: {
        workshop: await workshopForEvent(tx, deps.config, after),
        changes: { view: [mergeView(DEFAULT_VIEW, workshop.view), view] },
      },
    });
  }
  const illustrated = await illustratedStepIds(tx, workshopId);
  for (const step of await stepsOfWorkshop(tx, workshopId)) {
    const stepView = withoutReferences(step.view, removed);
    if (!stepView) continue;
    const after = await setStepView(tx, step.id, stepView, now);
    changes.record({
      workshopId,
      action: 'updateStep',
      userId,
      change: {
        step: toStep(after, illustrated.has(step.id)),
        changes: { view: [mergeView(DEFAULT_VIEW, step.view), stepView] },
      },
    });
  }
}
