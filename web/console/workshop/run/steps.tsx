/*
 * The agenda as it runs: the current step with its instructions, the way to the previous and the
 * next one, any step at a tap, and the reveal of a private step's ideas. The step shown is the
 * live state's, so a step another facilitator moves to shows here at once. Moving on stops the
 * timer, which was set for the step left, unless the facilitator keeps it on purpose.
 */
import { useSignal } from '@preact/signals';
import type { ComponentChildren } from 'preact';
import { ApiError, type Step } from 'workshop-sdk';
import { privacyOf } from 'workshop-sdk/live';
import { api } from '../../api';
import { Panel, Problem, useAction } from '../../forms';
import type { WorkshopScope } from '../context';
import { rich, t } from '../../i18n';

const hidden = (words: string) => <span class="visually-hidden">{words}</span>;

export function StepControls({ scope }: { scope: WorkshopScope }) {
  const steps = scope.steps.value;
  const { step: current, timer } = scope.state.value;
  const index = current ? steps.findIndex((step) => step.id === current.id) : -1;
  const keepTimer = useSignal(false);
  const move = useAction();
  const goTo = (stepId: string | null) =>
    move.run(async () => {
      await api.put('/v1/workshops/{id}', { params: { path: { id: scope.id } }, body: { current_step_id: stepId } });
      if (keepTimer.value || scope.state.value.timer.state === 'stopped') return;
      await api
        .put('/v1/workshops/{workshop_id}/timer', {
          params: { path: { workshop_id: scope.id } },
          body: { action: 'stop' },
        })
        // Someone else stopped it meanwhile: what was wanted is done.
        .catch((err: unknown) => {
          if (!(err instanceof ApiError && err.status === 409)) throw err;
        });
    });
  const previous = index > 0 ? steps[index - 1] : undefined;
  const next = index < steps.length - 1 ? steps[index + 1] : undefined;
  const busy = move.busy.value;
  const stepNumber = t('console.run.step.number', { number: index + 1, total: steps.length });
  // The arrows point the way the language reads: in Arabic the next step is to the left.
  const [back, forth] = document.documentElement.dir === 'rtl' ? ['→', '←'] : ['←', '→'];

  return (
    <Panel title={t('console.run.step.title')} class="run-step">
      {/* One element either way: a new one would take the place, and the focus, of the buttons below. */}
      <div class={current ? 'run-current' : 'run-current run-no-step'} aria-live="polite">
        {current ? (
          <>
            <p class="run-step-name">
              {index >= 0 && <span class="run-step-number">{stepNumber} </span>}
              <span class="run-step-title">{current.name}</span>
            </p>
            {current.instructions && <p class="run-instructions">{current.instructions}</p>}
          </>
        ) : (
          <p>{steps.length === 0 ? t('console.run.step.no_steps') : t('console.run.step.none_current')}</p>
        )}
      </div>
      <div class="run-step-nav">
        <StepButton to={previous} busy={busy} goTo={goTo}>
          <span aria-hidden="true">{back}</span> {t('console.run.step.previous')}
        </StepButton>
        <StepButton to={next} busy={busy} goTo={goTo} primary>
          {index < 0 ? t('console.run.step.first') : t('console.run.step.next')} <span aria-hidden="true">{forth}</span>
        </StepButton>
      </div>
      {timer.state !== 'stopped' && (
        <label class="choice run-keep-timer">
          <input
            type="checkbox"
            checked={keepTimer.value}
            onChange={(event) => (keepTimer.value = event.currentTarget.checked)}
          />
          {t('console.run.step.keep_timer')}
        </label>
      )}
      <Problem action={move} />
      <Reveal scope={scope} />
      {steps.length > 0 && <StepList steps={steps} currentId={current?.id ?? null} busy={busy} goTo={goTo} />}
    </Panel>
  );
}

/**
 * Previous or Next. It is never disabled, only marked so: a disabled button drops the keyboard's
 * focus to the page, and the facilitator pressing Next step after step keeps it here through the
 * request and at the end of the agenda.
 */
function StepButton(props: {
  to: Step | undefined;
  busy: boolean;
  goTo: (id: string) => unknown;
  primary?: boolean;
  children: ComponentChildren;
}) {
  const unavailable = props.busy || !props.to;
  return (
    <button
      type="button"
      class={props.primary ? 'primary' : undefined}
      aria-disabled={unavailable}
      onClick={() => {
        if (!unavailable) void props.goTo(props.to!.id);
      }}
    >
      {props.children}
    </button>
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
      <summary>{t('console.run.step.all')}</summary>
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
                {rich('console.run.step.go_to', { number: i + 1, name: step.name, hidden })}
                {isCurrent && <span class="run-now"> {t('console.run.step.now')}</span>}
              </button>
            </li>
          );
        })}
      </ol>
      {props.currentId !== null && (
        <button type="button" class="quiet" disabled={props.busy} onClick={() => void props.goTo(null)}>
          {t('console.run.step.leave')}
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
        {t('console.run.step.ideas_visible')}
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
        {t('console.run.step.ideas_private')}
      </p>
      <button type="button" class="primary" disabled={reveal.busy.value} onClick={() => void show()}>
        {t('console.run.step.reveal')}
      </button>
      <p class="hint">{t('console.run.step.reveal_hint')}</p>
      <Problem action={reveal} />
    </div>
  );
}
