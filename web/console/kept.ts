/*
 * What a console form holds and has not sent yet, kept for this tab (session storage) so that a
 * reload, or a session ended and the page opened again, shows it again: a step's edits
 * (workshop/agenda/drafts.ts), an invitation being written, a criterion, a canvas laid out, a
 * workshop being created… Where storage is refused, it lives as long as the page. Each key names
 * the signed-in account, the form and the workshop or organization it belongs to, so two never
 * share a draft. Never for passwords or secrets, nor addresses that may carry one (a webhook's
 * URL, a file's link). See docs/pages.md#nothing-typed-is-lost.
 */
import { batch, effect, signal, type Signal } from '@preact/signals';
import { useEffect, useMemo } from 'preact/hooks';

const PREFIX = 'workshop-console-draft:';
const inMemory = new Map<string, string>();

let owner = '';
/**
 * Whose drafts the keys name from now on (session.ts calls it as the signed-in account changes):
 * another account signed in on this tab finds none of them, and the owner finds them again after
 * signing in anew.
 */
export function draftsOf(userId: string | null): void {
  owner = userId ?? '';
}

/** The key of one form's draft: the account, the form's name, then the ids it belongs to (workshop, step…). */
export const keptKey = (form: string, ...ids: string[]) => `${PREFIX}${[owner, form, ...ids].join(':')}`;

export function keep(key: string, value: unknown): void {
  const text = JSON.stringify(value);
  inMemory.set(key, text);
  try {
    sessionStorage.setItem(key, text);
  } catch {
    // Kept in memory only.
  }
}

export function kept<T>(key: string): T | null {
  // Memory first: it always has the latest, where storage may have refused it (full).
  let text = inMemory.get(key) ?? null;
  try {
    text ??= sessionStorage.getItem(key);
  } catch {
    // Memory only.
  }
  try {
    return text ? (JSON.parse(text) as T) : null;
  } catch {
    return null;
  }
}

export function drop(key: string): void {
  inMemory.delete(key);
  try {
    sessionStorage.removeItem(key);
  } catch {
    // Memory only.
  }
}

/** Every draft of this tab (signing out: the next person to sign in here does not find them). */
export function dropAll(): void {
  inMemory.clear();
  try {
    for (const key of Object.keys(sessionStorage)) if (key.startsWith(PREFIX)) sessionStorage.removeItem(key);
  } catch {
    // Memory only.
  }
}

export interface KeptForm<T> {
  /** One signal per member, starting from the draft kept for this tab, else from `initial`. */
  fields: { [K in keyof T]: Signal<T[K]> };
  /** Whether the form started from a kept draft. */
  restored: boolean;
  /** Sent or cancelled: the draft is dropped and the fields start again from `initial`. */
  clear(): void;
  /** The draft is dropped, the fields stay as shown (the next change keeps them again). */
  forget(): void;
}

/**
 * A form whose fields are kept for this tab at each change, under `key`, until it is sent or
 * cleared; fields changed back to `initial` leave nothing kept. `initial` is read once per key.
 */
export function useKeptForm<T extends object>(key: string, initial: T): KeptForm<T> {
  const form = useMemo((): KeptForm<T> & { values: () => T; keep: () => void } => {
    const draft = kept<Partial<T>>(key);
    const names = Object.keys(initial) as Array<keyof T>;
    const fields = {} as KeptForm<T>['fields'];
    for (const name of names) fields[name] = signal(draft && name in draft ? draft[name]! : initial[name]);
    const values = () => Object.fromEntries(names.map((name) => [name, fields[name].value])) as T;
    return {
      fields,
      restored: draft !== null,
      values,
      keep() {
        const now = values();
        if (JSON.stringify(now) === JSON.stringify(initial)) drop(key);
        else keep(key, now);
      },
      forget: () => drop(key),
      clear() {
        batch(() => {
          for (const name of names) fields[name].value = initial[name];
        });
        drop(key);
      },
    };
  }, [key]);
  // Each change is kept at once (the first run only reads the fields: nothing is typed yet).
  useEffect(() => {
    let started = false;
    return effect(() => {
      form.values();
      if (started) form.keep();
      started = true;
    });
  }, [form]);
  return form;
}
