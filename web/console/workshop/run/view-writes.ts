/*
 * The forced view's writes (docs/api.md#workshops): each control of the Run tab's "What the screen
 * shows" writes the workshop's `view` or `force_sync` at once, and shows the change being written
 * until the live state has it.
 */
import { useSignal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';
import type { View, paths } from 'workshop-sdk';
import { api } from '../../api';
import { useAction, type Action } from '../../forms';
import type { WorkshopScope } from '../context';

type ViewChange = NonNullable<paths['/v1/workshops/{id}']['put']['requestBody']['content']['application/json']['view']>;
export type WorkshopChange = { view: ViewChange } | { force_sync: boolean };

/** What each part of the view's controls is given. */
export interface PartProps {
  scope: WorkshopScope;
  view: View;
  change: Action;
  write: (body: WorkshopChange) => unknown;
}

/**
 * The view as the live state has it, with the change being written shown already: a box ticked
 * stays ticked while its write travels (the live state would redraw it as it was until the change
 * comes back as `view:changed`), and goes back if the write is refused.
 */
export function useViewWrites(scope: WorkshopScope) {
  const live = scope.state.value;
  const change = useAction();
  const pending = useSignal<WorkshopChange | null>(null);
  const heard = useRef(false);
  useEffect(
    () =>
      scope.live.on('view:changed', () => {
        heard.current = true;
        if (!change.busy.value) pending.value = null;
      }),
    [scope],
  );
  const write = async (body: WorkshopChange) => {
    if (change.busy.value) return;
    pending.value = body;
    heard.current = false;
    const ok = await change.run(() => api.put('/v1/workshops/{id}', { params: { path: { id: scope.id } }, body }));
    // A write that changed nothing sends no event: nothing is left waiting for one.
    if (!ok || heard.current || unchanged(scope, body)) pending.value = null;
  };
  const wanted = pending.value;
  return {
    view: wanted && 'view' in wanted ? { ...live.view, ...wanted.view } : live.view,
    forceSync: wanted && 'force_sync' in wanted ? wanted.force_sync : live.forceSync,
    change,
    write,
  };
}

function unchanged(scope: WorkshopScope, body: WorkshopChange): boolean {
  const { view, forceSync } = scope.state.value;
  if ('force_sync' in body) return body.force_sync === forceSync;
  return Object.entries(body.view).every(
    ([key, value]) => JSON.stringify(view[key as keyof View]) === JSON.stringify(value),
  );
}
