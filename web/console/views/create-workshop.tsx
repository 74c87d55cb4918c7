/*
 * Creating a workshop, in each of the API's four ways: blank (for oneself or an organization),
 * from a template, as a copy of one of the person's workshops, or from a native file (uploaded
 * from this computer, or read from its address). The new workshop opens on its agenda. What is
 * typed is kept for this tab until the workshop is created (kept.ts); a file is chosen again.
 */
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import type { Workshop } from 'workshop-sdk';
import { api, InputProblem } from '../api';
import { Field, Problem, SelectField, onSubmit, useAction } from '../forms';
import { t } from '../i18n';
import { keptKey, useKeptForm } from '../kept';
import { navigate } from '../router';

export type Organization = { id: string; name: string };
type Mode = 'blank' | 'template' | 'copy' | 'file' | 'url';
type Template = { id: string; title: string; description: string };

const MODES = [
  ['blank', 'console.create.mode.blank'],
  ['template', 'console.create.mode.template'],
  ['copy', 'console.create.mode.copy'],
  ['file', 'console.create.mode.file'],
  ['url', 'console.create.mode.url'],
] as const satisfies ReadonlyArray<readonly [Mode, string]>;

/**
 * `workshops` are the person's (null until read): the form starts open when they have none, and
 * stays as the person leaves it after that.
 */
export function CreateWorkshop(props: { organizations: Organization[]; workshops: Workshop[] | null }) {
  const form = useKeptForm(keptKey('new-workshop'), {
    mode: 'blank' as Mode,
    title: '',
    description: '',
    owner: '',
    source: '',
  });
  const { mode, title, description, owner, source } = form.fields;
  // Not kept: a file's link may carry its access in it.
  const url = useSignal('');
  const template = useSignal('');
  /**
   * Open or closed as the person last left it; until they touch it, open when a draft came back
   * with the tab or when there is nothing in the list yet — decided in the same drawing as the
   * list, so a click on the heading made just after the list appeared is never overturned by a
   * later opening.
   */
  const openedByPerson = useSignal<boolean | null>(null);
  const open = openedByPerson.value ?? (form.restored || props.workshops?.length === 0);
  const file = useSignal<File | null>(null);
  const templates = useSignal<Template[]>([]);
  const action = useAction();

  useEffect(() => {
    api.get('/v1/templates').then(
      (found) => {
        templates.value = found;
        template.value ||= found[0]?.id ?? '';
      },
      () => undefined,
    );
  }, []);
  const copyable = props.workshops ?? [];

  const create = () =>
    action.run(async () => {
      const created = await createIn(mode.value);
      form.clear();
      url.value = '';
      navigate(`/workshops/${encodeURIComponent(created.id)}?tab=agenda`);
    });
  const createIn = async (how: Mode): Promise<Workshop> => {
    const named = title.value.trim() ? { title: title.value.trim() } : {};
    switch (how) {
      case 'blank': {
        const body = { title: title.value, description: description.value };
        if (owner.value)
          return api.post('/v1/organizations/{organization_id}/workshops', {
            params: { path: { organization_id: owner.value } },
            body,
          });
        return api.post('/v1/workshops', { body });
      }
      case 'template':
        return api.post('/v1/workshops', { body: { ...named, template: template.value } });
      case 'copy':
        return api.post('/v1/workshops', {
          body: { title: title.value, workshop_id: source.value || copyable[0]!.id },
        });
      case 'url':
        return api.post('/v1/workshops', { body: { ...named, url: url.value } });
      case 'file': {
        if (!file.value) throw new InputProblem(t('console.create.no_file'));
        const upload = await api.post('/v1/uploads', { body: { file: file.value } });
        return api.post('/v1/workshops', { body: { ...named, url: upload.url } });
      }
    }
  };

  return (
    <details
      class="panel create"
      open={open}
      onToggle={(e) => {
        // A toggle the page made itself already matches `open`; any other is the person's.
        if (e.currentTarget.open !== open) openedByPerson.value = e.currentTarget.open;
      }}
    >
      <summary>
        <h2>{t('console.create.title')}</h2>
      </summary>
      <form class="form" onSubmit={onSubmit(create)} aria-label={t('console.create.title')}>
        <fieldset class="modes">
          <legend>{t('console.create.start_from')}</legend>
          {MODES.map(([value, label]) => (
            <label key={value} class="choice">
              <input
                type="radio"
                name="mode"
                value={value}
                checked={mode.value === value}
                onChange={() => (mode.value = value)}
                disabled={value === 'copy' && copyable.length === 0}
              />
              {t(label)}
            </label>
          ))}
        </fieldset>
        <Field
          label={
            mode.value === 'blank' || mode.value === 'copy'
              ? t('console.create.workshop_title')
              : t('console.create.workshop_title_optional')
          }
          required={mode.value === 'blank' || mode.value === 'copy'}
          maxLength={200}
          value={title}
          action={action}
          name="title"
        />
        {mode.value === 'blank' && (
          <>
            <Field
              label={t('console.create.description')}
              maxLength={2000}
              value={description}
              action={action}
              name="description"
            />
            {props.organizations.length > 0 && (
              <SelectField
                label={t('console.create.owner')}
                value={owner}
                options={[
                  { value: '', label: t('console.create.myself') },
                  ...props.organizations.map((organization) => ({ value: organization.id, label: organization.name })),
                ]}
              />
            )}
          </>
        )}
        {mode.value === 'template' && (
          <SelectField
            label={t('console.create.template')}
            value={template}
            options={templates.value.map((found) => ({ value: found.id, label: found.title }))}
            hint={templates.value.find((found) => found.id === template.value)?.description}
          />
        )}
        {mode.value === 'copy' && (
          <SelectField
            label={t('console.create.source')}
            value={source}
            options={copyable.map((workshop) => ({ value: workshop.id, label: workshop.title }))}
          />
        )}
        {mode.value === 'url' && (
          <Field
            label={t('console.create.url')}
            type="url"
            required
            value={url}
            action={action}
            name="url"
            hint={t('console.create.url_hint')}
          />
        )}
        {mode.value === 'file' && (
          <label class="field">
            {t('console.create.file')}
            <input
              type="file"
              accept="application/json,.json"
              required
              onChange={(e) => (file.value = e.currentTarget.files?.[0] ?? null)}
            />
          </label>
        )}
        <button type="submit" class="primary" disabled={action.busy.value}>
          {t('console.create.submit')}
        </button>
        <Problem action={action} />
      </form>
    </details>
  );
}
