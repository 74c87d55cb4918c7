/*
 * A step's edits not saved yet, kept for this tab (kept.ts) beside the step as it was when editing
 * began: picking the step again, or reloading the tab, shows them again, and saving then sends
 * only what they changed.
 */
import { drop, keep, kept, keptKey } from '../../kept';

export interface KeptDraft<T> {
  base: T;
  draft: T;
}

const keyOf = (workshopId: string, stepId: string) => keptKey('step', workshopId, stepId);

export function keepDraft<T>(workshopId: string, stepId: string, draft: KeptDraft<T>): void {
  keep(keyOf(workshopId, stepId), draft);
}

export function keptDraft<T>(workshopId: string, stepId: string): KeptDraft<T> | null {
  return kept<KeptDraft<T>>(keyOf(workshopId, stepId));
}

export function dropDraft(workshopId: string, stepId: string): void {
  drop(keyOf(workshopId, stepId));
}
