/*
 * Editing one step: its name, instructions, every `prefs` member (prefs.tsx) and its `view`
 * (view-fields.tsx), saved in one PUT; then its illustration. While nothing is being changed here,
 * the form follows the step as others change it; once the facilitator starts editing it keeps
 * their edits until they save.
 */
import { useSignal } from '@preact/signals';
import { useEffect, useId, useRef } from 'preact/hooks';
import type { Criterion, Step, View } from 'workshop-sdk';
import { api } from '../../api';
import { Field, SubmitRow, onSubmit, useAction } from '../../forms';
import type { WorkshopScope } from '../context';
import { Illustration } from './illustration';
import { changedMembers } from '../live-read';
import { PrefsFields, type Prefs } from './prefs';
import { readSteps } from './step-order';
import { ViewFields } from './view-fields';

interface Draft {
  name: string;
  instructions: string;
  prefs: Prefs;
  view: View;
}
const draftOf = (step: Step): Draft => ({
  name: step.name,
  instructions: step.instructions,
  prefs: step.prefs,
  view: step.view,
});
const same = (a: Draft, b: Draft) => JSON.stringify(a) === JSON.stringify(b);

export function StepEditor(props: { scope: WorkshopScope; step: Step; criteria: Criterion[] }) {
  const { scope, step } = props;
  const name = useSignal(step.name);
  const instructions = useSignal(step.instructions);
  const prefs = useSignal(step.prefs);
  const view = useSignal(step.view);
  const saved = useSignal(false);
  const action = useAction();
  const instructionsId = useId();
  /** The step as the form last took it from the service. */
  const base = useRef(draftOf(step));
  const draft = (): Draft => ({
    name: name.value,
    instructions: instructions.value,
    prefs: prefs.value,
    view: view.value,
  });
  const take = (next: Step) => {
    base.current = draftOf(next);
    name.value = next.name;
    instructions.value = next.instructions;
    prefs.value = next.prefs;
    view.value = next.view;
  };
  // Another facilitator's change (or a move) shows here unless this form holds edits of its own.
  useEffect(() => {
    if (same(draft(), base.current)) take(step);
  }, [step]);
  const dirty = !same(draft(), base.current);

  const save = () =>
    action.run(async () => {
      saved.value = false;
      const answer = await api.put('/v1/workshops/{workshop_id}/steps/{id}', {
        params: { path: { workshop_id: scope.id, id: step.id } },
        // Only what this form changed, member by member: the service merges prefs and view so.
        body: {
          name: name.value,
          ...(instructions.value !== base.current.instructions && { instructions: instructions.value }),
          prefs: changedMembers(base.current.prefs, prefs.value),
          view: changedMembers(base.current.view, view.value),
        },
      });
      take(answer);
      saved.value = true;
      await readSteps(scope);
    });

  return (
    <div class="step-editor">
      <form class="form" onSubmit={onSubmit(save)} aria-label={`Edit the step ${step.name}`}>
        <Field label="Step name" required maxLength={200} value={name} action={action} name="name" />
        <div class="field">
          <label for={instructionsId}>Instructions</label>
          <textarea
            id={instructionsId}
            rows={4}
            maxLength={20000}
            value={instructions.value}
            onInput={(e) => (instructions.value = e.currentTarget.value)}
          />
        </div>
        <PrefsFields prefs={prefs.value} onChange={(next) => (prefs.value = next)} />
        <details class="group view-group">
          <summary>What the screens show during this step</summary>
          <ViewFields
            view={view.value}
            cards={scope.state.value.cards}
            criteria={props.criteria}
            onChange={(next) => (view.value = next)}
          />
        </details>
        <SubmitRow action={action} label="Save step" status={saved.value && !dirty ? 'Saved.' : ''}>
          {dirty && <span class="hint">Unsaved changes</span>}
        </SubmitRow>
      </form>
      <Illustration key={step.id} scope={scope} step={step} />
    </div>
  );
}
