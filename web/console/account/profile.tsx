/*
 * The Account page's profile: the name others see (`PUT /v1/user/me`) and the avatar, chosen from
 * the computer or removed, asked first (`PUT /v1/user/me/avatar`). Each says when it is saved.
 */
import { useSignal } from '@preact/signals';
import { useId, useRef } from 'preact/hooks';
import type { User } from 'workshop-sdk';
import { api, InputProblem } from '../api';
import { ConfirmButton, Field, Problem, SubmitRow, onSubmit, useAction } from '../forms';
import { loadMe } from '../session';
import { t } from '../i18n';

/** The types the service keeps as avatars (it re-encodes them, at most 512×512). */
const IMAGE_TYPES = 'image/png,image/jpeg,image/webp,image/gif';

export function Profile({ account }: { account: User }) {
  return (
    <>
      <NameForm account={account} />
      <Avatar account={account} />
    </>
  );
}

function NameForm({ account }: { account: User }) {
  const name = useSignal(account.name);
  /** The name the last save stored: "Saved." stands while the field still holds it. */
  const saved = useSignal<string | null>(null);
  const action = useAction();
  const typed = name.value.trim();
  const changed = typed !== account.name;
  const submit = () =>
    action.run(async () => {
      if (!typed) throw new InputProblem(t('console.account.profile.name_empty'), 'name');
      await api.put('/v1/user/me', { body: { name: typed } });
      await loadMe();
      saved.value = typed;
    });
  return (
    <form class="form" onSubmit={onSubmit(submit)} aria-label={t('console.account.profile.form')}>
      <Field
        label={t('console.fields.name')}
        name="name"
        autocomplete="name"
        required
        maxLength={200}
        hint={t('console.account.profile.name_hint')}
        value={name}
        action={action}
      />
      <SubmitRow
        action={action}
        label={t('console.common.save_name')}
        status={saved.value === typed && !changed ? t('console.common.saved') : ''}
      >
        {changed && !action.busy.value && <span class="hint">{t('console.common.not_saved')}</span>}
      </SubmitRow>
    </form>
  );
}

function Avatar({ account }: { account: User }) {
  const input = useRef<HTMLInputElement>(null);
  const id = useId();
  const said = useSignal('');
  const action = useAction();
  const upload = (file: File) =>
    action.run(async () => {
      said.value = '';
      await api.put('/v1/user/me/avatar', { body: { avatar: file } });
      await loadMe();
      said.value = t('console.common.avatar_saved');
    });
  const remove = () =>
    action.run(async () => {
      said.value = '';
      // No avatar part at all: the service removes the avatar.
      await api.put('/v1/user/me/avatar', { body: undefined as never });
      await loadMe();
      said.value = t('console.common.avatar_removed');
    });
  return (
    <div class="account-avatar">
      {account.avatar_url ? (
        <img
          class="avatar"
          src={account.avatar_url}
          alt={t('console.account.profile.avatar_alt')}
          width={72}
          height={72}
        />
      ) : (
        <span class="avatar avatar-none" aria-hidden="true">
          {account.name.trim().charAt(0).toUpperCase()}
        </span>
      )}
      <div class="account-avatar-actions">
        <label for={id} class="file-button">
          {account.avatar_url
            ? t('console.account.profile.avatar_another')
            : t('console.account.profile.avatar_choose')}
        </label>
        <input
          id={id}
          ref={input}
          type="file"
          class="visually-hidden"
          accept={IMAGE_TYPES}
          disabled={action.busy.value}
          aria-describedby={`${id}-hint`}
          onChange={(event) => {
            const file = event.currentTarget.files?.[0];
            event.currentTarget.value = '';
            if (file) void upload(file);
          }}
        />
        {account.avatar_url && (
          <ConfirmButton
            label={t('console.common.remove_avatar')}
            question={t('console.account.profile.avatar_remove_question')}
            confirm={t('console.common.remove_avatar_confirm')}
            disabled={action.busy.value}
            onConfirm={remove}
          />
        )}
        <p id={`${id}-hint`} class="hint">
          {t('console.account.profile.avatar_hint', { size: 512 })}
        </p>
        <Problem action={action} />
        <p role="status" class="done">
          {action.busy.value ? t('console.common.saving') : said.value}
        </p>
      </div>
    </div>
  );
}
