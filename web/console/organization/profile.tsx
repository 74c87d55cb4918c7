/*
 * The Organization section: its name (`PUT /v1/organizations/:id {name}`), saved with a visible
 * saved state and an "unsaved" hint while typed; and its avatar (`PUT …/avatar`, multipart),
 * replaced or removed.
 */
import { useSignal } from '@preact/signals';
import { useId } from 'preact/hooks';
import { api } from '../api';
import { ConfirmButton, Field, onSubmit, Problem, SubmitRow, useAction } from '../forms';
import type { Organization } from './types';
import { t } from '../i18n';

const IMAGES = 'image/png,image/jpeg,image/gif,image/webp,image/avif,image/tiff';

export function Profile(props: { organization: Organization; onSaved: (next: Organization) => void }) {
  const { organization, onSaved } = props;
  const path = { params: { path: { id: organization.id } } };
  const name = useSignal(organization.name);
  const saving = useAction();
  const saved = useSignal('');
  const picture = useAction();
  const pictureSaid = useSignal('');
  const fileId = useId();

  const save = () =>
    saving.run(async () => {
      saved.value = '';
      const next = name.value.trim();
      await api.put('/v1/organizations/{id}', { ...path, body: { name: next } });
      name.value = next;
      onSaved({ ...organization, name: next });
      saved.value = t('console.common.saved');
    });
  /** The avatar as the service now has it (its address changes with each image). */
  const reread = async () => onSaved(await api.get('/v1/organizations/{id}', path));
  const upload = (file: File) =>
    picture.run(async () => {
      pictureSaid.value = '';
      await api.put('/v1/organizations/{id}/avatar', { ...path, body: { avatar: file } });
      await reread();
      pictureSaid.value = t('console.common.avatar_saved');
    });
  const remove = () =>
    picture.run(async () => {
      pictureSaid.value = '';
      // No avatar part at all: the service removes the avatar.
      await api.put('/v1/organizations/{id}/avatar', { ...path, body: undefined as never });
      await reread();
      pictureSaid.value = t('console.common.avatar_removed');
    });

  const unsaved = name.value.trim() !== organization.name;
  return (
    <div class="organization-profile">
      <form class="form" aria-label={t('console.organization.profile.form')} onSubmit={onSubmit(save)}>
        <Field
          label={t('console.fields.name')}
          name="name"
          value={name}
          action={saving}
          required
          maxLength={200}
          autocomplete="off"
        />
        <SubmitRow action={saving} label={t('console.common.save_name')} status={unsaved ? '' : saved.value}>
          {unsaved && <span class="hint">{t('console.common.not_saved')}</span>}
        </SubmitRow>
      </form>
      <div class="organization-avatar">
        <h3>{t('console.fields.avatar')}</h3>
        {organization.avatar_url ? (
          <img
            class="organization-avatar-large"
            src={organization.avatar_url}
            alt={t('console.organization.profile.avatar_alt', { name: organization.name })}
          />
        ) : (
          <p class="empty">{t('console.organization.profile.no_avatar')}</p>
        )}
        <div class="field">
          <label for={fileId}>
            {organization.avatar_url
              ? t('console.organization.profile.replace_image')
              : t('console.organization.profile.choose_image')}
          </label>
          <input
            id={fileId}
            type="file"
            accept={IMAGES}
            disabled={picture.busy.value}
            onChange={(event) => {
              const file = event.currentTarget.files?.[0];
              event.currentTarget.value = '';
              if (file) void upload(file);
            }}
          />
          <p class="hint">{t('console.organization.profile.image_hint', { size: 512 })}</p>
        </div>
        {organization.avatar_url && (
          <ConfirmButton
            label={t('console.common.remove_avatar')}
            class="danger"
            question={t('console.organization.profile.remove_question')}
            confirm={t('console.common.remove_avatar_confirm')}
            onConfirm={remove}
          />
        )}
        <p role="status" class="done avatar-said">
          {picture.busy.value ? t('console.common.saving') : pictureSaid.value}
        </p>
        <Problem action={picture} />
      </div>
    </div>
  );
}
