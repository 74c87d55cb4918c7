/*
 * A step's edits not saved yet, kept for this tab (session storage) beside the step as it was
 * when editing began: picking the step again, or reloading the tab, shows them again, and saving
 * then sends only what they changed. Where storage is refused, they live as long as the page.
 */

export interface KeptDraft<T> {
  base: T;
  draft: T;
}

const inMemory = new Map<string, string>();
const keyOf = (workshopId: string, stepId: string) => `workshop-console-step-draft:${workshopId}:${stepId}`;

export function keepDraft<T>(workshopId: string, stepId: string, kept: KeptDraft<T>): void {
  const key = keyOf(workshopId, stepId);
  const text = JSON.stringify(kept);
  inMemory.set(key, text);
  try {
    sessionStorage.setItem(key, text);
  } catch {
    // Kept in memory only.
  }
}

export function keptDraft<T>(workshopId: string, stepId: string): KeptDraft<T> | null {
  const key = keyOf(workshopId, stepId);
  let text = inMemory.get(key) ?? null;
  try {
    text = sessionStorage.getItem(key) ?? text;
  } catch {
    // Memory only.
  }
  try {
    return text ? (JSON.parse(text) as KeptDraft<T>) : null;
  } catch {
    return null;
  }
}

export function dropDraft(workshopId: string, stepId: string): void {
  const key = keyOf(workshopId, stepId);
  inMemory.delete(key);
  try {
    sessionStorage.removeItem(key);
  } catch {
    // Memory only.
  }
}
