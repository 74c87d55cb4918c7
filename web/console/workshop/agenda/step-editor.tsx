/*
 * Editing one step: its name, instructions, every `prefs` member (prefs.tsx) and its `view`
 * (view-fields.tsx), saved in one PUT; then its illustration. While nothing is being changed here,
 * the form follows the step as others change it; once the facilitator starts editing it keeps
 * their edits until they are saved. They are saved as they are typed (a moment after the last
 * keystroke, "Saving…" then "Saved."), at once when the editor closes (another step picked,
 * another tab, the browser's back button), and what could not be saved yet (no name, the server
 * away, the session ended) is kept for this tab (drafts.ts) and shown again with the step.
 * See docs/pages.md#steps-saved-as-they-are-typed.
 */
import { useSignal } from '@preact/signals';
import { useEffect, useId, useMemo, useRef } from 'preact/hooks';
import type { Criterion, Step, View } from 'workshop-sdk';
import { api, InputProblem } from '../../api';
import { sessionEnded } from '../../session-end';
import { Field, SubmitRow, onSubmit, useAction } from '../../forms';
import { t } from '../../i18n';
import type { WorkshopScope } from '../context';
import { Illustration } from './illustration';
import { changedMembers } from '../live-read';
import { dropDraft, keepDraft, keptDraft } from './drafts';
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
/** How long after the last change the step is saved. */
const SAVE_AFTER_MS = 700;

export function StepEditor(props: { scope: WorkshopScope; step: Step; criteria: Criterion[] }) {
  const { scope, step } = props;
  // Edits not saved when this step was last open come back with it.
  const kept = useMemo(() => keptDraft<Draft>(scope.id, step.id), []);
  const start = kept?.draft ?? draftOf(step);
  const name = useSignal(start.name);
  const instructions = useSignal(start.instructions);
  const prefs = useSignal(start.prefs);
  const view = useSignal(start.view);
  const saved = useSignal(false);
  const action = useAction();
  const instructionsId = useId();
  /** The step as the form last took it from the service. */
  const base = useRef(kept?.base ?? draftOf(step));
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

  /** Sends what differs from `base`; edits typed while it was under way stay, and are sent next. */
  const send = async () => {
    const sent = draft();
    if (same(sent, base.current)) return;
    if (!sent.name.trim()) throw new InputProblem(t('console.agenda.step.name_needed'), 'name');
    const answer = await api.put('/v1/workshops/{workshop_id}/steps/{id}', {
      params: { path: { workshop_id: scope.id, id: step.id } },
      // Only what this form changed, member by member: the service merges prefs and view so.
      body: {
        name: sent.name,
        ...(sent.instructions !== base.current.instructions && { instructions: sent.instructions }),
        prefs: changedMembers(base.current.prefs, sent.prefs),
        view: changedMembers(base.current.view, sent.view),
      },
    });
    if (same(draft(), sent)) take(answer);
    else base.current = draftOf(answer);
    if (same(draft(), base.current)) dropDraft(scope.id, step.id);
    else keepDraft(scope.id, step.id, { base: base.current, draft: draft() });
    saved.value = true;
    await readSteps(scope);
  };
  /** One save at a time: a save asked for while one runs follows it. */
  const saving = useRef({ running: false, again: false });
  const save = async (): Promise<void> => {
    const run = saving.current;
    if (run.running) {
      run.again = true;
      return;
    }
    run.running = true;
    saved.value = false;
    try {
      await action.run(send);
    } finally {
      run.running = false;
    }
    if (run.again) {
      run.again = false;
      return save();
    }
  };

  // Each change is kept for this tab at once, and saved a moment after the last one.
  const values = [name.value, instructions.value, prefs.value, view.value];
  useEffect(() => {
    if (!dirty) return;
    keepDraft(scope.id, step.id, { base: base.current, draft: draft() });
    const timer = setTimeout(() => void save(), SAVE_AFTER_MS);
    return () => clearTimeout(timer);
  }, values);
  // Back online, or signed in again: what is still unsaved is sent.
  const ready = scope.state.value.status === 'live' && !sessionEnded.value;
  useEffect(() => {
    if (ready && !same(draft(), base.current) && action.problem.value) void save();
  }, [ready]);
  // Closing the editor (another step, another tab, back) saves at once; closing the page asks first.
  useEffect(() => {
    const ask = (event: BeforeUnloadEvent) => {
      if (!same(draft(), base.current)) event.preventDefault();
    };
    addEventListener('beforeunload', ask);
    return () => {
      removeEventListener('beforeunload', ask);
      if (!same(draft(), base.current)) void save();
    };
  }, []);

  const status = action.busy.value
    ? t('console.common.saving')
    : saved.value && !dirty
      ? t('console.common.saved')
      : '';
  return (
    <div class="step-editor">
      <form class="form" onSubmit={onSubmit(save)} aria-label={t('console.agenda.step.edit', { name: step.name })}>
        <Field
          label={t('console.agenda.step.name')}
          required
          maxLength={200}
          value={name}
          action={action}
          name="name"
        />
        <div class="field">
          <label for={instructionsId}>{t('console.agenda.step.instructions')}</label>
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
          <summary>{t('console.agenda.step.view')}</summary>
          <ViewFields
            view={view.value}
            cards={scope.state.value.cards}
            criteria={props.criteria}
            onChange={(next) => (view.value = next)}
          />
        </details>
        <SubmitRow action={action} label={t('console.agenda.step.save')} status={status}>
          {dirty && !action.busy.value && <span class="hint">{t('console.agenda.step.not_saved')}</span>}
        </SubmitRow>
      </form>
      <Illustration key={step.id} scope={scope} step={step} />
    </div>
  );
}
