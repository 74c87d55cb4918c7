/*
 * The Account page's end: deleting the account (docs/api.md#an-accounts-life). Asking first reads
 * what would go (`GET /v1/user/me/deletion`) and says it with counts: the workshops deleted, those
 * passed on and to whom, the organizations left or deleted, the sessions, tokens and
 * notifications. An only admin of an organization with others in it is told which ones need
 * another admin first, and offered no deletion. `DELETE /v1/user/me` asks the password, or for an
 * account without one a recent sign-in; once it answers the console is signed out and says the
 * account is gone.
 */
import { signal, useSignal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';
import { api } from '../api';
import { Field, Problem, onSubmit, useAction } from '../forms';
import { Link, navigate } from '../router';
import { forget, signOut } from '../session';
import { count, inWords } from './calls';
import { dropAll } from '../kept';

/** What deleting the account would do, as the service previews it. */
export type DeletionPreview = Awaited<ReturnType<typeof readDeletionPreview>>;

export function readDeletionPreview() {
  return api.get('/v1/user/me/deletion');
}

/** Said on the signed-out page once the account is deleted. */
export const farewell = signal('');

const REAUTHENTICATE =
  'You signed in more than 10 minutes ago, and this account has no password to confirm it is you: sign out, sign in again, and come back here within 10 minutes.';

export function DeleteAccount() {
  const preview = useSignal<DeletionPreview | null>(null);
  const open = useAction();
  const ask = () =>
    open.run(async () => {
      preview.value = await readDeletionPreview();
    });
  if (!preview.value)
    return (
      <>
        <p>
          Deleting your account removes it for good, with your own workshops; what you wrote in other people’s workshops
          stays, shown as written by a deleted user. You are shown everything that goes before anything is deleted.
        </p>
        <button type="button" class="danger" disabled={open.busy.value} onClick={() => void ask()}>
          Delete your account…
        </button>
        <Problem action={open} />
      </>
    );
  return <Confirmation preview={preview.value} onCancel={() => (preview.value = null)} />;
}

function Confirmation(props: { preview: DeletionPreview; onCancel: () => void }) {
  const { preview } = props;
  const password = useSignal('');
  const action = useAction();
  const blocked = preview.last_admin_of.length > 0;
  const heading = useRef<HTMLHeadingElement>(null);
  // Opened from its button: the question is where reading goes on.
  useEffect(() => heading.current?.focus(), []);
  const submit = () =>
    action.run(async () => {
      try {
        await api.delete('/v1/user/me', { body: preview.password_required ? { password: password.value } : {} });
      } catch (err) {
        throw inWords(err, {
          invalid_credentials: ['That password is wrong: nothing was deleted.', 'password'],
          last_admin: 'An organization of yours needs another admin first: nothing was deleted. Cancel and look again.',
          reauthentication_required: REAUTHENTICATE,
        });
      }
      farewell.value = 'Your account is deleted, and you are signed out everywhere. Thank you for your workshops.';
      dropAll(); // What this account kept in the tab goes with it.
      forget();
      navigate('/', { replace: true });
    });
  const gone = [
    count(preview.sessions, 'session'),
    count(preview.api_tokens, 'API token'),
    count(preview.notifications, 'notification'),
  ];
  return (
    <div class="account-deletion" role="group" aria-label="Delete your account?">
      <h3 ref={heading} tabIndex={-1}>
        Delete your account?
      </h3>
      {blocked ? (
        <div class="notice account-blocked">
          <p>
            You are the only admin of {count(preview.last_admin_of.length, 'organization')} that others still use. Make
            someone else an admin there first, or remove its members and workshops; then come back here.
          </p>
          <ul>
            {preview.last_admin_of.map((organization) => (
              <li key={organization.id}>
                <Link href={`/organizations/${encodeURIComponent(organization.id)}`}>{organization.name}</Link>
              </li>
            ))}
          </ul>
        </div>
      ) : (
        <p>This cannot be undone. Here is what goes, and what stays with others:</p>
      )}
      <List
        class="deletion-workshops-deleted"
        title={`${count(preview.workshops_deleted.length, 'workshop')} of yours deleted, with ${preview.workshops_deleted.length === 1 ? 'its' : 'their'} files`}
        items={preview.workshops_deleted.map((w) => ({ id: w.id, text: w.title }))}
      />
      <List
        class="deletion-workshops-passed-on"
        title={`${count(preview.workshops_passed_on.length, 'workshop')} passed on to another facilitator`}
        items={preview.workshops_passed_on.map((w) => ({ id: w.id, text: `${w.title}, to ${w.to.name}` }))}
      />
      <List
        class="deletion-organizations-deleted"
        title={`${count(preview.organizations_deleted.length, 'organization')} deleted with you, as nobody else uses ${preview.organizations_deleted.length === 1 ? 'it' : 'them'}`}
        items={preview.organizations_deleted.map((o) => ({ id: o.id, text: o.name }))}
      />
      <List
        class="deletion-organizations-left"
        title={`${count(preview.organizations_left.length, 'organization')} you leave`}
        items={preview.organizations_left.map((o) => ({ id: o.id, text: o.name }))}
      />
      <p class="deletion-counts">
        Also deleted: {gone.join(', ')}, your avatar and your pending invitations. What you wrote in other people’s
        workshops stays, shown as written by a deleted user; your votes and ratings stay counted.
      </p>
      {!blocked && (
        <form class="form" onSubmit={onSubmit(submit)} aria-label="Delete your account">
          {preview.password_required ? (
            <Field
              label="Your password"
              type="password"
              name="password"
              autocomplete="current-password"
              required
              hint="To be sure it is you."
              value={password}
              action={action}
            />
          ) : preview.reauthentication_required ? (
            <p class="notice">
              {REAUTHENTICATE}{' '}
              <button type="button" class="link" onClick={() => void signOut()}>
                Sign out
              </button>
            </p>
          ) : null}
          <Problem action={action} />
          <div class="save-row">
            <button
              type="submit"
              class="danger"
              disabled={action.busy.value || (!preview.password_required && preview.reauthentication_required)}
            >
              Delete my account for good
            </button>
            <button type="button" onClick={props.onCancel}>
              Cancel
            </button>
          </div>
        </form>
      )}
      {blocked && (
        <button type="button" onClick={props.onCancel}>
          Close
        </button>
      )}
    </div>
  );
}

function List(props: { class: string; title: string; items: Array<{ id: string; text: string }> }) {
  if (props.items.length === 0) return null;
  return (
    <div class={props.class}>
      <p class="deletion-title">{props.title}:</p>
      <ul>
        {props.items.map((item) => (
          <li key={item.id}>{item.text}</li>
        ))}
      </ul>
    </div>
  );
}
