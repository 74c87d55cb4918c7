/*
 * The workshop's settings: title, description, whether guests may join, whether participants'
 * screens follow the shared one, the mails, and the vote budgets (docs/api.md#feedback-on-cards:
 * -1 is "unlimited", which the form says in words). Only the members changed here are sent, so a
 * change made meanwhile elsewhere (the Run tab's screen following) is kept. Changes not saved yet
 * are kept for this tab beside the settings as they were (kept.ts), and come back after a reload.
 */
import { useSignal } from '@preact/signals';
import { useEffect, useId, useMemo, useRef } from 'preact/hooks';
import type { Workshop } from 'workshop-sdk';
import { api } from '../../api';
import { Field, SubmitRow, onSubmit, useAction } from '../../forms';
import { drop, keep, kept, keptKey } from '../../kept';
import type { WorkshopScope } from '../context';
import { changedMembers } from '../live-read';
import type { KeptDraft } from './drafts';

type Flag = 'allow_guests' | 'force_sync' | 'daily_mail' | 'change_step_notifications';
type Limit = keyof Workshop['vote_limit'];
type Settings = Pick<Workshop, 'title' | 'description' | Flag | 'vote_limit'>;

const FLAGS: Array<[Flag, string, string]> = [
  ['allow_guests', 'Guests may join', 'People without an account join with the code and a name.'],
  [
    'force_sync',
    'Participants’ screens follow the shared screen',
    'The Run tab switches this on and off while the workshop runs.',
  ],
  ['daily_mail', 'Send members a daily mail', 'A summary of the day’s activity.'],
  ['change_step_notifications', 'Tell members when the step changes', 'A notification at each new step.'],
];
const LIMITS: Array<[Limit, string, boolean]> = [
  ['positive', 'Points each person may give in all', true],
  ['negative', 'Negative points each person may give in all', true],
  ['max_positive', 'Most points one person may give one card', false],
  ['max_negative', 'Most negative points one person may give one card', false],
];

const settingsOf = (w: Workshop): Settings => ({
  title: w.title,
  description: w.description,
  allow_guests: w.allow_guests,
  force_sync: w.force_sync,
  daily_mail: w.daily_mail,
  change_step_notifications: w.change_step_notifications,
  vote_limit: w.vote_limit,
});

export function WorkshopSettings({ scope }: { scope: WorkshopScope }) {
  const workshop = scope.state.value.workshop;
  const key = keptKey('settings', scope.id);
  const unsaved = useMemo(() => kept<KeptDraft<Settings>>(key), []);
  const draft = useSignal(unsaved?.draft ?? settingsOf(workshop));
  const title = useSignal(unsaved?.draft.title ?? workshop.title);
  const base = useRef(unsaved?.base ?? settingsOf(workshop));
  const saved = useSignal(false);
  const action = useAction();
  const descriptionId = useId();
  const current = (): Settings => ({ ...draft.value, title: title.value });
  const dirty = JSON.stringify(current()) !== JSON.stringify(base.current);
  const take = (w: Workshop) => {
    base.current = settingsOf(w);
    draft.value = settingsOf(w);
    title.value = w.title;
  };
  useEffect(() => {
    if (!dirty) take(workshop);
  }, [workshop]);
  useEffect(() => {
    if (dirty) keep(key, { base: base.current, draft: current() });
    else drop(key);
  }, [draft.value, title.value]);

  const set = <K extends keyof Settings>(key: K, value: Settings[K]) => {
    saved.value = false;
    draft.value = { ...draft.value, [key]: value };
  };
  const setLimit = (key: Limit, value: number) => set('vote_limit', { ...draft.value.vote_limit, [key]: value });
  const save = () =>
    action.run(async () => {
      const { vote_limit, ...rest } = changedMembers(base.current, current());
      const limits = vote_limit && changedMembers(base.current.vote_limit, vote_limit);
      const answer = await api.put('/v1/workshops/{id}', {
        params: { path: { id: scope.id } },
        body: { ...rest, ...(limits && { vote_limit: limits }) },
      });
      take(answer);
      saved.value = true;
    });

  const { vote_limit } = draft.value;
  return (
    <form class="form settings" onSubmit={onSubmit(save)} aria-label="Workshop settings">
      <Field label="Title" required maxLength={200} value={title} action={action} name="title" />
      <div class="field">
        <label for={descriptionId}>Description</label>
        <textarea
          id={descriptionId}
          rows={2}
          maxLength={2000}
          value={draft.value.description}
          onInput={(e) => set('description', e.currentTarget.value)}
        />
      </div>
      {FLAGS.map(([key, label, hint]) => (
        <div key={key}>
          <label class="choice">
            <input
              type="checkbox"
              checked={draft.value[key]}
              aria-describedby={`${descriptionId}-${key}`}
              onChange={(e) => set(key, e.currentTarget.checked)}
            />
            {label}
          </label>
          <p class="hint" id={`${descriptionId}-${key}`}>
            {hint}
          </p>
        </div>
      ))}
      <fieldset class="group budgets">
        <legend>Vote budgets</legend>
        {LIMITS.map(([key, label, unlimitable]) => (
          <Budget
            key={key}
            label={label}
            value={vote_limit[key]}
            unlimitable={unlimitable}
            invalid={action.field.value === `vote_limit.${key}`}
            onChange={(value) => setLimit(key, value)}
          />
        ))}
      </fieldset>
      <SubmitRow action={action} label="Save settings" status={saved.value && !dirty ? 'Saved.' : ''} />
    </form>
  );
}

/** One budget: a number of points, or (for the workshop-wide ones) no limit at all, which the API writes -1. */
function Budget(props: {
  label: string;
  value: number;
  unlimitable: boolean;
  invalid: boolean;
  onChange: (value: number) => void;
}) {
  const id = useId();
  const unlimited = props.unlimitable && props.value === -1;
  return (
    <div class="budget">
      <label for={id}>{props.label}</label>
      <span class="budget-input">
        <input
          id={id}
          type="number"
          min={props.unlimitable ? 0 : 1}
          step={1}
          inputMode="numeric"
          value={unlimited || Number.isNaN(props.value) ? '' : String(props.value)}
          disabled={unlimited}
          placeholder={unlimited ? 'No limit' : undefined}
          aria-invalid={props.invalid || undefined}
          // Left empty, it is sent as it is, and the service's refusal says what is expected.
          onInput={(e) => props.onChange(e.currentTarget.value === '' ? NaN : Number(e.currentTarget.value))}
        />
        {props.unlimitable && (
          <label class="choice">
            <input
              type="checkbox"
              checked={unlimited}
              onChange={(e) => props.onChange(e.currentTarget.checked ? -1 : 10)}
            />
            <span class="visually-hidden">{props.label}: </span>
            Unlimited
          </label>
        )}
      </span>
    </div>
  );
}
