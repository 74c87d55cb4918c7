/*
 * The agenda as it runs: the current step with its instructions, the way to the previous and the
 * next one, any step at a tap, and the reveal of a private step's ideas. The step shown is the
 * live state's, so a step another facilitator moves to shows here at once.
 */
import type { Step } from 'workshop-sdk';
import { privacyOf } from 'workshop-sdk/live';
import { api } from '../../api';
import { Panel, Problem, useAction } from '../../forms';
import type { WorkshopScope } from '../context';

export function StepControls({ scope }: { scope: WorkshopScope }) {
  const steps = scope.steps.value;
  const current = scope.state.value.step;
  const index = current ? steps.findIndex((step) => step.id === current.id) : -1;
  const move = useAction();
  const goTo = (stepId: string | null) =>
    move.run(() =>
      api.put('/v1/workshops/{id}', { params: { path: { id: scope.id } }, body: { current_step_id: stepId } }),
    );
  const previous = index > 0 ? steps[index - 1] : undefined;
  const next = index < steps.length - 1 ? steps[index + 1] : undefined;
  const busy = move.busy.value;

  return (
    <Panel title="Step" class="run-step">
      {current ? (
        <div class="run-current" aria-live="polite">
          <p class="run-step-name">
            {index >= 0 && (
              <span class="run-step-number">
                Step {index + 1} of {steps.length}:{' '}
              </span>
            )}
            <span class="run-step-title">{current.name}</span>
          </p>
          {current.instructions && <p class="run-instructions">{current.instructions}</p>}
        </div>
      ) : (
        <p class="run-current run-no-step" aria-live="polite">
          {steps.length === 0
            ? 'The agenda has no steps yet: add them on the Agenda tab.'
            : 'No step is current: participants wait for the first one.'}
        </p>
      )}
      <div class="run-step-nav">
        <button type="button" disabled={busy || !previous} onClick={() => previous && void goTo(previous.id)}>
          <span aria-hidden="true">←</span> Previous step
        </button>
        <button type="button" class="primary" disabled={busy || !next} onClick={() => next && void goTo(next.id)}>
          {index < 0 ? 'First step' : 'Next step'} <span aria-hidden="true">→</span>
        </button>
      </div>
      <Problem action={move} />
      <Reveal scope={scope} />
      {steps.length > 0 && <StepList steps={steps} currentId={current?.id ?? null} busy={busy} goTo={goTo} />}
    </Panel>
  );
}

/** Every step, to jump to any of them, and a way back to none current (before or after the agenda). */
function StepList(props: {
  steps: Step[];
  currentId: string | null;
  busy: boolean;
  goTo: (id: string | null) => unknown;
}) {
  return (
    <details class="run-jump">
      <summary>All steps</summary>
      <ol class="run-step-list">
        {props.steps.map((step, i) => {
          const isCurrent = step.id === props.currentId;
          return (
            <li key={step.id}>
              <button
                type="button"
                aria-current={isCurrent ? 'step' : undefined}
                disabled={props.busy || isCurrent}
                onClick={() => void props.goTo(step.id)}
              >
                <span class="visually-hidden">Go to step </span>
                {i + 1}. {step.name}
                {isCurrent && <span class="run-now"> (now)</span>}
              </button>
            </li>
          );
        })}
      </ol>
      {props.currentId !== null && (
        <button type="button" class="quiet" disabled={props.busy} onClick={() => void props.goTo(null)}>
          Leave no step current
        </button>
      )}
    </details>
  );
}

/**
 * Whether participants see each other's ideas now, and while they do not, the reveal: the current
 * step's `cards_visible` set to `all` (docs/api.md#private-writing-and-anonymous-authors), which
 * brings every idea onto every participant's device.
 */
function Reveal({ scope }: { scope: WorkshopScope }) {
  const state = scope.state.value;
  const step = state.step;
  const reveal = useAction();
  if (privacyOf(state).cardsVisible !== 'own' || !step)
    return (
      <p class="run-privacy" data-private="false">
        Ideas are visible to everyone.
      </p>
    );
  const show = () =>
    reveal.run(() =>
      api.put('/v1/workshops/{workshop_id}/steps/{id}', {
        params: { path: { workshop_id: scope.id, id: step.id } },
        body: { name: step.name, prefs: { cards_visible: 'all' } },
      }),
    );
  return (
    <div class="run-reveal">
      <p class="run-privacy" data-private="true">
        Ideas are private now: each participant sees only their own and the facilitators’.
      </p>
      <button type="button" class="primary" disabled={reveal.busy.value} onClick={() => void show()}>
        Reveal everyone’s ideas
      </button>
      <p class="hint">This step then shows everyone’s ideas; moving on to a step that shows them reveals them too.</p>
      <Problem action={reveal} />
    </div>
  );
}
