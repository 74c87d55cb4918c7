/*
 * Moving steps: each move shows at once and is written as the step's new `position`, one PUT
 * after the other in the order they were asked, so moves made quickly in a row (a held arrow
 * key) are all kept. While some are still being written the list keeps the order asked for,
 * rather than flickering through the orders the service answers in between; once the last is
 * written the steps are read again, and a refusal is said.
 */
import { useSignal } from '@preact/signals';
import { useRef } from 'preact/hooks';
import type { Step } from 'workshop-sdk';
import { api, problemText } from '../../api';
import type { WorkshopScope } from '../context';
import { moved } from './drag';
import { inWorkshop } from '../live-read';

/** Reads the steps again into the scope (the tabs all show them), without waiting for the live event. */
export async function readSteps(scope: WorkshopScope): Promise<void> {
  scope.steps.value = await api.get('/v1/workshops/{workshop_id}/steps', inWorkshop(scope));
}

export function useStepOrder(scope: WorkshopScope) {
  /** The ids in the order asked for, while moves are being written; null otherwise. */
  const asked = useSignal<string[] | null>(null);
  const problem = useSignal('');
  const writes = useRef<Promise<void>>(Promise.resolve());
  const waiting = useRef(0);

  const known = scope.steps.value;
  const order = asked.value;
  const steps: Step[] = order
    ? [
        ...order.flatMap((id) => known.filter((step) => step.id === id)),
        // Steps others added meanwhile go after the ones being moved.
        ...known.filter((step) => !order.includes(step.id)),
      ]
    : known;

  /** Moves the step at `from` to `to`; answers the step moved, or null when there is no such move. */
  const move = (from: number, to: number): Step | null => {
    const step = steps[from];
    if (!step || to < 0 || to >= steps.length || to === from) return null;
    asked.value = moved(
      steps.map((each) => each.id),
      from,
      to,
    );
    problem.value = '';
    waiting.current++;
    const write = async () => {
      try {
        await api.put('/v1/workshops/{workshop_id}/steps/{id}', {
          params: { path: { workshop_id: scope.id, id: step.id } },
          body: { name: step.name, position: to },
        });
      } catch (err) {
        problem.value = problemText(err);
      } finally {
        if (--waiting.current === 0) {
          await readSteps(scope).catch(() => undefined);
          // Another move may have been asked while the steps were read.
          if (waiting.current === 0) asked.value = null;
        }
      }
    };
    writes.current = writes.current.then(write);
    return step;
  };

  return { steps, move, moving: asked.value !== null, problem };
}
