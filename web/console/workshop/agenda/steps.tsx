/*
 * The agenda's steps in order: add one by name, pick one to edit, delete one, and move one by
 * dragging its handle (mouse or finger) or from the keyboard (the Move up / Move down buttons, or
 * the arrow keys on the focused handle). A move shows at once and is written as the step's new
 * `position` (step-order.ts); focus stays with the step that moved.
 */
import { useSignal, type Signal } from '@preact/signals';
import { useId, useLayoutEffect, useRef } from 'preact/hooks';
import type { Step } from 'workshop-sdk';
import { api } from '../../api';
import { keptKey, useKeptForm } from '../../kept';
import { ConfirmButton, Field, Problem, onSubmit, useAction } from '../../forms';
import { t } from '../../i18n';
import type { WorkshopScope } from '../context';
import { useDragOrder } from './drag';
import { inWorkshop } from '../live-read';
import { readSteps, useStepOrder } from './step-order';

type Control = 'handle' | 'up' | 'down';

/** Marks, not words: the same in every language, hidden from screen readers (the buttons have labels). */
const GRIP = '⠿';
const UP = '↑';
const DOWN = '↓';

export function StepList(props: { scope: WorkshopScope; selected: Signal<string | null> }) {
  const { scope, selected } = props;
  const order = useStepOrder(scope);
  const { steps } = order;
  const action = useAction();
  const told = useSignal('');
  const hintId = useId();
  /** The control to give focus back to once the moved step is drawn at its new place. */
  const refocus = useRef<{ id: string; control: Control } | null>(null);

  const move = (from: number, to: number, control: Control) => {
    const step = order.move(from, to);
    if (!step) return;
    refocus.current = { id: step.id, control };
    told.value = t('console.agenda.steps.moved', { name: step.name, at: to + 1, count: steps.length });
  };
  const drag = useDragOrder((from, to) => move(from, to, 'handle'));

  // A moved row is taken out of the page and put back, which loses focus: give it back (only
  // then, so focus the person moved elsewhere meanwhile stays where they put it).
  const moving = order.moving;
  useLayoutEffect(() => {
    const want = refocus.current;
    if (!want) return;
    if (!moving) refocus.current = null;
    if (document.activeElement && document.activeElement !== document.body) return;
    const row = drag.list.current?.querySelector(`[data-step="${CSS.escape(want.id)}"]`);
    let target = row?.querySelector<HTMLButtonElement>(`[data-control="${want.control}"]`);
    if (!target || target.disabled) target = row?.querySelector<HTMLButtonElement>('[data-control="handle"]');
    target?.focus();
  });

  const remove = (step: Step) =>
    action.run(async () => {
      await api.delete('/v1/workshops/{workshop_id}/steps/{id}', {
        params: { path: { workshop_id: scope.id, id: step.id } },
      });
      if (selected.value === step.id) selected.value = null;
      await readSteps(scope);
    });

  return (
    <div class="steps">
      <p id={hintId} class="visually-hidden">
        {t('console.agenda.steps.hint')}
      </p>
      {steps.length === 0 && <p class="empty">{t('console.agenda.steps.none')}</p>}
      <ol class="step-list" ref={drag.list} aria-busy={moving || undefined}>
        {steps.map((step, index) => (
          <li
            key={step.id}
            data-step={step.id}
            class={`step-row ${drag.rowClass(index)} ${step.id === selected.value ? 'selected' : ''}`}
          >
            <button
              type="button"
              class="handle"
              data-control="handle"
              aria-label={t('console.agenda.steps.move', { name: step.name })}
              aria-describedby={hintId}
              {...drag.handle(index)}
              onKeyDown={(event) => {
                const by = event.key === 'ArrowUp' ? -1 : event.key === 'ArrowDown' ? 1 : 0;
                if (!by) return;
                event.preventDefault();
                move(index, index + by, 'handle');
              }}
            >
              <span aria-hidden="true">{GRIP}</span>
            </button>
            <span class="step-number" aria-hidden="true">
              {index + 1}
            </span>
            <button
              type="button"
              class="step-name"
              aria-pressed={step.id === selected.value}
              onClick={() => {
                selected.value = step.id;
                // On a phone the editor is below the list: bring it into view once drawn.
                requestAnimationFrame(() => {
                  const editor = document.querySelector('.step-detail');
                  if (editor && editor.getBoundingClientRect().top > innerHeight) editor.scrollIntoView();
                });
              }}
            >
              {step.name}
            </button>
            <span class="row-actions">
              <button
                type="button"
                data-control="up"
                aria-label={t('console.agenda.steps.up', { name: step.name })}
                disabled={index === 0}
                onClick={() => move(index, index - 1, 'up')}
              >
                <span aria-hidden="true">{UP}</span>
              </button>
              <button
                type="button"
                data-control="down"
                aria-label={t('console.agenda.steps.down', { name: step.name })}
                disabled={index === steps.length - 1}
                onClick={() => move(index, index + 1, 'down')}
              >
                <span aria-hidden="true">{DOWN}</span>
              </button>
              <ConfirmButton
                label={t('console.common.delete')}
                class="danger"
                question={t('console.agenda.steps.delete_question', { name: step.name })}
                confirm={t('console.agenda.steps.delete')}
                onConfirm={() => remove(step)}
              />
            </span>
          </li>
        ))}
      </ol>
      <p class="visually-hidden" role="status">
        {told.value}
      </p>
      {order.problem.value && (
        <p class="problem" role="alert">
          {order.problem.value}
        </p>
      )}
      <Problem action={action} />
      <AddStep scope={scope} selected={selected} />
    </div>
  );
}

/**
 * Adds a step at the end; the new one is opened in the editor, and the field stays ready for the
 * next. A name typed and not added yet is kept for this tab (kept.ts).
 */
function AddStep(props: { scope: WorkshopScope; selected: Signal<string | null> }) {
  const form = useKeptForm(keptKey('new-step', props.scope.id), { name: '' });
  const { name } = form.fields;
  const action = useAction();
  const add = () =>
    action.run(async () => {
      const step = await api.post('/v1/workshops/{workshop_id}/steps', {
        ...inWorkshop(props.scope),
        body: { name: name.value },
      });
      form.clear();
      props.selected.value = step.id;
      await readSteps(props.scope);
    });
  return (
    <form class="add-row" onSubmit={onSubmit(add)} aria-label={t('console.agenda.steps.add_label')}>
      <Field label={t('console.agenda.steps.new')} value={name} required maxLength={200} action={action} name="name" />
      <button type="submit" disabled={action.busy.value}>
        {t('console.agenda.steps.add')}
      </button>
      <Problem action={action} />
    </form>
  );
}
