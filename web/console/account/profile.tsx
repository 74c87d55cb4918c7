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
      if (!typed) throw new InputProblem('Your name cannot be empty.', 'name');
      await api.put('/v1/user/me', { body: { name: typed } });
      await loadMe();
      saved.value = typed;
    });
  return (
    <form class="form" onSubmit={onSubmit(submit)} aria-label="Your name">
      <Field
        label="Name"
        name="name"
        autocomplete="name"
        required
        maxLength={200}
        hint="Shown to the people in your workshops and organizations."
        value={name}
        action={action}
      />
      <SubmitRow action={action} label="Save the name" status={saved.value === typed && !changed ? 'Saved.' : ''}>
        {changed && !action.busy.value && <span class="hint">Not saved yet.</span>}
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
      said.value = 'Avatar saved.';
    });
  const remove = () =>
    action.run(async () => {
      said.value = '';
      // No avatar part at all: the service removes the avatar.
      await api.put('/v1/user/me/avatar', { body: undefined as never });
      await loadMe();
      said.value = 'Avatar removed.';
    });
  return (
    <div class="account-avatar">
      {account.avatar_url ? (
        <img class="avatar" src={account.avatar_url} alt="Your avatar" width={72} height={72} />
      ) : (
        <span class="avatar avatar-none" aria-hidden="true">
          {account.name.trim().charAt(0).toUpperCase()}
        </span>
      )}
      <div class="account-avatar-actions">
        <label for={id} class="file-button">
          {account.avatar_url ? 'Choose another avatar' : 'Choose an avatar'}
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
            label="Remove the avatar"
            question="Remove your avatar? The image is deleted from the service, and your name is shown without a picture."
            confirm="Remove avatar"
            disabled={action.busy.value}
            onConfirm={remove}
          />
        )}
        <p id={`${id}-hint`} class="hint">
          A PNG, JPEG, WebP or GIF image, saved as soon as it is chosen and made at most 512 pixels wide and high.
        </p>
        <Problem action={action} />
        <p role="status" class="done">
          {action.busy.value ? 'Saving…' : said.value}
        </p>
      </div>
    </div>
  );
}
