/*
 * A card put in front of everyone from the card itself, on the board or in its detail: the
 * workshop's `view.card` (docs/api.md#workshops), which the screen shows and, while participants
 * follow it, their devices. The Run tab's search writes the same member (run/spotlight.tsx).
 */
import { api } from '../../api';
import { useAction, type Action } from '../../forms';
import type { WorkshopScope } from '../context';

export interface Spotlight {
  action: Action;
  /** Lights `cardId`, or puts the spotlight out with null. */
  put(scope: WorkshopScope, cardId: string | null): Promise<boolean>;
}

export function useSpotlight(): Spotlight {
  const action = useAction();
  return {
    action,
    put: (scope, cardId) =>
      action.run(() =>
        api.put('/v1/workshops/{id}', { params: { path: { id: scope.id } }, body: { view: { card: cardId } } }),
      ),
  };
}
