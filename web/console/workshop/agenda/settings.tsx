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
import { rich, t } from '../../i18n';
import { drop, keep, kept, keptKey } from '../../kept';
import type { WorkshopScope } from '../context';
import { changedMembers } from '../live-read';
import type { Words } from './choose';
import type { KeptDraft } from './drafts';

type Flag = 'allow_guests' | 'force_sync' | 'daily_mail' | 'change_step_notifications';
type Limit = keyof Workshop['vote_limit'];
type Settings = Pick<Workshop, 'title' | 'description' | Flag | 'vote_limit'>;

// Each with the ids of its words, said when the form is drawn (in the console's language).
const FLAGS = [
  ['allow_guests', 'console.agenda.settings.guests', 'console.agenda.settings.guests_hint'],
  ['force_sync', 'console.agenda.settings.force_sync', 'console.agenda.settings.force_sync_hint'],
  ['daily_mail', 'console.agenda.settings.daily_mail', 'console.agenda.settings.daily_mail_hint'],
  [
    'change_step_notifications',
    'console.agenda.settings.step_notifications',
    'console.agenda.settings.step_notifications_hint',
  ],
] as const satisfies ReadonlyArray<readonly [Flag, Words, Words]>;
const LIMITS = [
  ['positive', 'console.agenda.settings.limit.positive', true],
  ['negative', 'console.agenda.settings.limit.negative', true],
  ['max_positive', 'console.agenda.settings.limit.max_positive', false],
  ['max_negative', 'console.agenda.settings.limit.max_negative', false],
] as const satisfies ReadonlyArray<readonly [Limit, Words, boolean]>;

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
    <form class="form settings" onSubmit={onSubmit(save)} aria-label={t('console.agenda.settings.label')}>
      <Field label={t('console.common.title')} required maxLength={200} value={title} action={action} name="title" />
      <div class="field">
        <label for={descriptionId}>{t('console.common.description')}</label>
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
            {t(label)}
          </label>
          <p class="hint" id={`${descriptionId}-${key}`}>
            {t(hint)}
          </p>
        </div>
      ))}
      <fieldset class="group budgets">
        <legend>{t('console.agenda.settings.budgets')}</legend>
        {LIMITS.map(([key, label, unlimitable]) => (
          <Budget
            key={key}
            label={t(label)}
            value={vote_limit[key]}
            unlimitable={unlimitable}
            invalid={action.field.value === `vote_limit.${key}`}
            onChange={(value) => setLimit(key, value)}
          />
        ))}
      </fieldset>
      <SubmitRow
        action={action}
        label={t('console.agenda.settings.save')}
        status={saved.value && !dirty ? t('console.common.saved') : ''}
      />
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
          placeholder={unlimited ? t('console.agenda.settings.no_limit') : undefined}
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
            {rich('console.agenda.settings.unlimited', {
              label: props.label,
              hidden: (words) => <span class="visually-hidden">{words}</span>,
            })}
          </label>
        )}
      </span>
    </div>
  );
}
