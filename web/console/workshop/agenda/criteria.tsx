/*
 * The workshop's criteria (what cards are rated on, each on one of four scales) and its sections
 * (the headings items are filed under on a card): add, rename, delete. Both are read again when
 * the log reports a change to them, so another facilitator's edit shows here.
 */
import { useSignal } from '@preact/signals';
import type { ComponentChildren } from 'preact';
import { useEffect, useId } from 'preact/hooks';
import type { Criterion, Section } from 'workshop-sdk';
import { api } from '../../api';
import { t } from '../../i18n';
import { keptKey, useKeptForm, type KeptForm } from '../../kept';
import { ConfirmButton, Field, Problem, onSubmit, useAction } from '../../forms';
import type { WorkshopScope } from '../context';
import { Choose, said } from './choose';
import { inWorkshop, useLiveRead, type LiveRead } from '../live-read';

/** The service's rating scales by number (docs: spec, Criterion), in words. */
const SCALES = [
  ['1', 'console.agenda.scale.1'],
  ['2', 'console.agenda.scale.2'],
  ['3', 'console.agenda.scale.3'],
  ['4', 'console.agenda.scale.4'],
] as const;

/** What a titled list holds: the messages say the word in each language's grammar. */
type What = 'criterion' | 'section';

/** The workshop's criteria, kept current (the step editor's view also needs them). */
export function useCriteria(scope: WorkshopScope): LiveRead<Criterion[]> {
  return useLiveRead(scope, /Criteri/, () => api.get('/v1/workshops/{workshop_id}/criteria', inWorkshop(scope)));
}

export function Criteria(props: { scope: WorkshopScope; criteria: LiveRead<Criterion[]> }) {
  const { scope, criteria } = props;
  const draft = useKeptForm(keptKey('criterion', scope.id), { title: '', scale: 1 });
  const { scale } = draft.fields;
  const at = (id: string) => ({ params: { path: { workshop_id: scope.id, id } } });
  return (
    <TitledList
      what="criterion"
      read={criteria}
      draft={draft}
      describe={(criterion) => t('console.agenda.rated', { values: criterion.current_scale.join(', ') })}
      add={async (title) => {
        await api.post('/v1/workshops/{workshop_id}/criteria', {
          ...inWorkshop(scope),
          body: { title, scale: scale.value },
        });
      }}
      rename={(item, title) =>
        api.put('/v1/workshops/{workshop_id}/criteria/{id}', { ...at(item.id), body: { title } })
      }
      remove={(item) => api.delete('/v1/workshops/{workshop_id}/criteria/{id}', at(item.id))}
    >
      <Choose
        label={t('console.agenda.scale_label')}
        options={said(SCALES)}
        value={String(scale.value)}
        onChange={(value) => (scale.value = Number(value))}
      />
    </TitledList>
  );
}

export function Sections({ scope }: { scope: WorkshopScope }) {
  const sections = useLiveRead(scope, /Section/, () =>
    api.get('/v1/workshops/{workshop_id}/sections', inWorkshop(scope)),
  );
  const draft = useKeptForm(keptKey('section', scope.id), { title: '' });
  const at = (id: string) => ({ params: { path: { workshop_id: scope.id, id } } });
  return (
    <TitledList<Section>
      what="section"
      read={sections}
      draft={draft}
      add={async (title) => {
        await api.post('/v1/workshops/{workshop_id}/sections', { ...inWorkshop(scope), body: { title } });
      }}
      rename={(item, title) =>
        api.put('/v1/workshops/{workshop_id}/sections/{id}', { ...at(item.id), body: { title } })
      }
      remove={(item) => api.delete('/v1/workshops/{workshop_id}/sections/{id}', at(item.id))}
    />
  );
}

interface Titled {
  id: string;
  title: string;
}

/** A list of titled things with a rename field and a delete button each, and a form to add one. */
function TitledList<T extends Titled>(props: {
  what: What;
  read: LiveRead<T[]>;
  /** The form that adds one, kept for this tab until it is sent (kept.ts). */
  draft: KeptForm<{ title: string }>;
  describe?: (item: T) => string;
  add: (title: string) => Promise<unknown>;
  rename: (item: T, title: string) => Promise<unknown>;
  remove: (item: T) => Promise<unknown>;
  /** More fields of the form that adds one. */
  children?: ComponentChildren;
}) {
  const { what, read } = props;
  const { title } = props.draft.fields;
  const adding = useAction();
  const items = read.value.value;
  const add = () =>
    adding.run(async () => {
      await props.add(title.value);
      title.value = '';
      props.draft.forget();
      await read.reload();
    });
  const change = async (work: () => Promise<unknown>) => {
    await work();
    await read.reload();
  };
  return (
    <div class="titled">
      {items === undefined ? (
        <p class="empty">{read.problem.value || t('console.loading')}</p>
      ) : items.length === 0 ? (
        <p class="empty">{t('console.agenda.titled.none')}</p>
      ) : (
        <ul class="titled-list">
          {items.map((item) => (
            <TitledRow
              key={item.id}
              what={what}
              item={item}
              note={props.describe?.(item)}
              onRename={(next) => change(() => props.rename(item, next))}
              onDelete={() => change(() => props.remove(item))}
            />
          ))}
        </ul>
      )}
      <form class="add-row" onSubmit={onSubmit(add)} aria-label={t('console.agenda.titled.add_label', { what })}>
        <Field
          label={t('console.agenda.titled.new', { what })}
          value={title}
          required
          maxLength={200}
          action={adding}
          name="title"
        />
        {props.children}
        <button type="submit" disabled={adding.busy.value}>
          {t('console.agenda.titled.add', { what })}
        </button>
        <Problem action={adding} />
      </form>
    </div>
  );
}

function TitledRow<T extends Titled>(props: {
  what: What;
  item: T;
  note?: string;
  onRename: (title: string) => Promise<unknown>;
  onDelete: () => Promise<unknown>;
}) {
  const { item, what } = props;
  // Each row has its own action, so renaming one while another is being deleted loses neither.
  const action = useAction();
  const title = useSignal(item.title);
  const id = useId();
  // The title as others change it, unless it is being edited here.
  const shown = useSignal(item.title);
  useEffect(() => {
    if (title.value === shown.value) title.value = item.title;
    shown.value = item.title;
  }, [item.title]);
  return (
    <li class="titled-row" data-title={item.title}>
      <form
        class="rename"
        onSubmit={onSubmit(() => action.run(() => props.onRename(title.value)))}
        aria-label={t('console.agenda.titled.rename_label', { title: item.title })}
      >
        <label class="visually-hidden" for={id}>
          {t('console.agenda.titled.title_of', { what, title: item.title })}
        </label>
        <input
          id={id}
          value={title.value}
          required
          maxLength={200}
          onInput={(e) => (title.value = e.currentTarget.value)}
        />
        <button type="submit" disabled={title.value === item.title}>
          {t('console.common.rename')}
        </button>
      </form>
      {props.note && <span class="meta">{props.note}</span>}
      <ConfirmButton
        label={t('console.common.delete')}
        class="danger"
        question={t('console.agenda.titled.delete_question', { what, title: item.title })}
        confirm={t('console.agenda.titled.delete', { what })}
        onConfirm={() => action.run(props.onDelete)}
      />
      <Problem action={action} />
    </li>
  );
}
