/*
 * What the agenda and people tabs show beyond the live state (criteria, sections, the canvas, an
 * illustration, members, invitations) is read over REST, and read again whenever the workshop's
 * log reports a change to it, so two facilitators see each other's edits without reloading.
 */
import { useSignal, type Signal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';
import { ApiError } from 'workshop-sdk';
import { problemText } from '../api';
import type { WorkshopScope } from './context';

export interface LiveRead<T> {
  /** The last answer; undefined until the first one. */
  value: Signal<T | undefined>;
  /** Why the last read failed ('' when it did not). */
  problem: Signal<string>;
  /** Reads again now (after this view's own write, so it shows without waiting for the event). */
  reload(): Promise<void>;
  /** Shows what this view's own write answered, in place of a read (a read on its way is dropped). */
  set(answer: T): void;
}

/**
 * Reads `read()` at once and again after each change whose action matches `actions`. Only the
 * newest read is kept, so a slow answer never overwrites a later one. `missing` is what a 404
 * means (no canvas, no illustration) instead of a failure; with `exists`, the live state's word
 * that there is one (`has_canvas`, `has_illustration`), nothing is asked while it says there is
 * none, and `missing` is shown.
 */
export function useLiveRead<T>(
  scope: WorkshopScope,
  actions: RegExp,
  read: () => Promise<T>,
  missing?: T,
  exists?: () => boolean,
): LiveRead<T> {
  const value = useSignal<T | undefined>(undefined);
  const problem = useSignal('');
  const latest = useRef(0);
  const set = (answer: T) => {
    latest.current++;
    value.value = answer;
    problem.value = '';
  };
  const reload = async () => {
    if (missing !== undefined && exists && !exists()) return set(missing);
    const ticket = ++latest.current;
    try {
      const answer = await read();
      if (ticket !== latest.current) return;
      value.value = answer;
      problem.value = '';
    } catch (err) {
      if (ticket !== latest.current) return;
      if (missing !== undefined && err instanceof ApiError && err.status === 404) {
        value.value = missing;
        problem.value = '';
      } else problem.value = problemText(err);
    }
  };
  const handle = useRef({ value, problem, reload, set });
  handle.current.reload = reload;
  useEffect(() => {
    void handle.current.reload();
    return scope.onChange((action) => {
      if (actions.test(action)) void handle.current.reload();
    });
  }, [scope]);
  return handle.current;
}

/** The path parameters of the workshop's own routes. */
export function inWorkshop(scope: WorkshopScope) {
  return { params: { path: { workshop_id: scope.id } } };
}

/**
 * The members of `after` that differ from `before`: what a PUT sends, so that a member another
 * facilitator changed meanwhile (and this form did not touch) is left as they set it.
 */
export function changedMembers<T extends object>(before: T, after: T): Partial<T> {
  const changed: Partial<T> = {};
  for (const key of Object.keys(after) as Array<keyof T>) {
    if (JSON.stringify(before[key]) !== JSON.stringify(after[key])) changed[key] = after[key];
  }
  return changed;
}
