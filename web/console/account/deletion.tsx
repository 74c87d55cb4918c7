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
import { inWords } from './calls';
import { t } from '../i18n';
import { dropAll } from '../kept';

/** What deleting the account would do, as the service previews it. */
export type DeletionPreview = Awaited<ReturnType<typeof readDeletionPreview>>;

export function readDeletionPreview() {
  return api.get('/v1/user/me/deletion');
}

/** Said on the signed-out page once the account is deleted. */
export const farewell = signal('');

const reauthenticate = () => t('console.account.deletion.reauthenticate', { minutes: 10 });

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
        <p>{t('console.account.deletion.intro')}</p>
        <button type="button" class="danger" disabled={open.busy.value} onClick={() => void ask()}>
          {t('console.account.deletion.open')}
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
  /** Said before the sign-out button, a space between them. */
  const reauthenticateFirst = `${reauthenticate()} `;
  const heading = useRef<HTMLHeadingElement>(null);
  // Opened from its button: the question is where reading goes on.
  useEffect(() => heading.current?.focus(), []);
  const submit = () =>
    action.run(async () => {
      try {
        await api.delete('/v1/user/me', { body: preview.password_required ? { password: password.value } : {} });
      } catch (err) {
        throw inWords(err, {
          invalid_credentials: [t('console.account.deletion.wrong_password'), 'password'],
          last_admin: t('console.account.deletion.last_admin'),
          reauthentication_required: reauthenticate(),
        });
      }
      farewell.value = t('console.account.deletion.farewell');
      dropAll(); // What this account kept in the tab goes with it.
      forget();
      navigate('/', { replace: true });
    });
  return (
    <div class="account-deletion" role="group" aria-label={t('console.account.deletion.question')}>
      <h3 ref={heading} tabIndex={-1}>
        {t('console.account.deletion.question')}
      </h3>
      {blocked ? (
        <div class="notice account-blocked">
          <p>{t('console.account.deletion.blocked', { count: preview.last_admin_of.length })}</p>
          <ul>
            {preview.last_admin_of.map((organization) => (
              <li key={organization.id}>
                <Link href={`/organizations/${encodeURIComponent(organization.id)}`}>{organization.name}</Link>
              </li>
            ))}
          </ul>
        </div>
      ) : (
        <p>{t('console.account.deletion.undone')}</p>
      )}
      <List
        class="deletion-workshops-deleted"
        title={t('console.account.deletion.workshops_deleted', { count: preview.workshops_deleted.length })}
        items={preview.workshops_deleted.map((w) => ({ id: w.id, text: w.title }))}
      />
      <List
        class="deletion-workshops-passed-on"
        title={t('console.account.deletion.workshops_passed_on', { count: preview.workshops_passed_on.length })}
        items={preview.workshops_passed_on.map((w) => ({
          id: w.id,
          text: t('console.account.deletion.passed_on_to', { title: w.title, name: w.to.name }),
        }))}
      />
      <List
        class="deletion-organizations-deleted"
        title={t('console.account.deletion.organizations_deleted', { count: preview.organizations_deleted.length })}
        items={preview.organizations_deleted.map((o) => ({ id: o.id, text: o.name }))}
      />
      <List
        class="deletion-organizations-left"
        title={t('console.account.deletion.organizations_left', { count: preview.organizations_left.length })}
        items={preview.organizations_left.map((o) => ({ id: o.id, text: o.name }))}
      />
      <p class="deletion-counts">
        {t('console.account.deletion.also', {
          sessions: preview.sessions,
          tokens: preview.api_tokens,
          notifications: preview.notifications,
        })}
      </p>
      {!blocked && (
        <form class="form" onSubmit={onSubmit(submit)} aria-label={t('console.account.deletion.form')}>
          {preview.password_required ? (
            <Field
              label={t('console.account.your_password')}
              type="password"
              name="password"
              autocomplete="current-password"
              required
              hint={t('console.account.deletion.password_hint')}
              value={password}
              action={action}
            />
          ) : preview.reauthentication_required ? (
            <p class="notice">
              {reauthenticateFirst}
              <button type="button" class="link" onClick={() => void signOut()}>
                {t('console.sign_out')}
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
              {t('console.account.deletion.submit')}
            </button>
            <button type="button" onClick={props.onCancel}>
              {t('console.common.cancel')}
            </button>
          </div>
        </form>
      )}
      {blocked && (
        <button type="button" onClick={props.onCancel}>
          {t('console.common.close')}
        </button>
      )}
    </div>
  );
}

function List(props: { class: string; title: string; items: Array<{ id: string; text: string }> }) {
  if (props.items.length === 0) return null;
  return (
    <div class={props.class}>
      <p class="deletion-title">{props.title}</p>
      <ul>
        {props.items.map((item) => (
          <li key={item.id}>{item.text}</li>
        ))}
      </ul>
    </div>
  );
}
