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
      saved.value = 'Saved.';
    });
  /** The avatar as the service now has it (its address changes with each image). */
  const reread = async () => onSaved(await api.get('/v1/organizations/{id}', path));
  const upload = (file: File) =>
    picture.run(async () => {
      pictureSaid.value = '';
      await api.put('/v1/organizations/{id}/avatar', { ...path, body: { avatar: file } });
      await reread();
      pictureSaid.value = 'Avatar saved.';
    });
  const remove = () =>
    picture.run(async () => {
      pictureSaid.value = '';
      // No avatar part at all: the service removes the avatar.
      await api.put('/v1/organizations/{id}/avatar', { ...path, body: undefined as never });
      await reread();
      pictureSaid.value = 'Avatar removed.';
    });

  const unsaved = name.value.trim() !== organization.name;
  return (
    <div class="organization-profile">
      <form class="form" aria-label="The organization’s name" onSubmit={onSubmit(save)}>
        <Field label="Name" name="name" value={name} action={saving} required maxLength={200} autocomplete="off" />
        <SubmitRow action={saving} label="Save the name" status={unsaved ? '' : saved.value}>
          {unsaved && <span class="hint">Not saved yet.</span>}
        </SubmitRow>
      </form>
      <div class="organization-avatar">
        <h3>Avatar</h3>
        {organization.avatar_url ? (
          <img class="organization-avatar-large" src={organization.avatar_url} alt={`Avatar of ${organization.name}`} />
        ) : (
          <p class="empty">No avatar yet.</p>
        )}
        <div class="field">
          <label for={fileId}>{organization.avatar_url ? 'Replace it with an image' : 'Choose an image'}</label>
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
          <p class="hint">PNG, JPEG, GIF, WebP, AVIF or TIFF; shown at most 512×512.</p>
        </div>
        {organization.avatar_url && (
          <ConfirmButton
            label="Remove the avatar"
            class="danger"
            question="Remove the organization’s avatar?"
            confirm="Remove avatar"
            onConfirm={remove}
          />
        )}
        <p role="status" class="done avatar-said">
          {picture.busy.value ? 'Saving…' : pictureSaid.value}
        </p>
        <Problem action={picture} />
      </div>
    </div>
  );
}
