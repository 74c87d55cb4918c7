/*
 * What every tab of a workshop's console is given: the workshop's live state from the SDK (kept
 * current by its events), the agenda (the live state holds the current step only), and a way to
 * hear each logged change so a tab can read again what it shows.
 */
import type { Signal } from '@preact/signals';
import type { Step } from 'workshop-sdk';
import type { LiveWorkshop, WorkshopState } from 'workshop-sdk/live';

export interface WorkshopScope {
  id: string;
  live: LiveWorkshop;
  /** The live state, as a signal: views that read it redraw on each burst of changes. */
  state: Signal<WorkshopState>;
  /** The steps in order, read again after any change to them. */
  steps: Signal<Step[]>;
  /**
   * Calls `listener` with the action of each logged change to the workshop (`updateStep`,
   * `createCriterium`…, as `workshop:event` and the other live events name them). Returns the
   * function that stops it.
   */
  onChange(listener: (action: string) => void): () => void;
}

/**
 * The tabs of a workshop's console, in the order they are shown, by their `?tab=` name; each
 * says its name from `console.workshop.tab` (shell.tsx).
 */
export const TABS = ['run', 'agenda', 'board', 'canvas', 'people', 'exports', 'log'] as const;
export type TabName = (typeof TABS)[number];
