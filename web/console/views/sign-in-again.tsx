/*
 * The session ended under the page (session-end.ts): a dialog over it asks for the password of
 * the account signed in, whose address is known, and the console carries on where it was, every
 * form as it was left; the new token replaces the old and the live connections open again with
 * it. An account opened through a provider signs in in another tab (this tab's forms stay as they
 * are, what they hold kept in this tab's storage by kept.ts); that tab's token is taken from
 * there. See docs/pages.md#when-the-session-ends.
 */
import { useSignal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';
import { api } from '../api';
import { Field, Problem, onSubmit, useAction } from '../forms';
import { rich, t } from '../i18n';
import { dropAll } from '../kept';
import { forget, me, signIn, TOKEN_KEY } from '../session';
import { sessionEnded, signedInAgain } from '../session-end';

async function carryOn(token: string): Promise<void> {
  await signIn(token);
  sessionEnded.value = false;
  signedInAgain.value++;
}

export function SignInAgain() {
  const ended = sessionEnded.value;
  const account = me.value;
  const dialog = useRef<HTMLDialogElement>(null);
  const password = useSignal('');
  const action = useAction();
  useEffect(() => {
    const box = dialog.current;
    if (!box) return;
    if (ended && !box.open) box.showModal();
    if (!ended && box.open) box.close();
  }, [ended, account]);
  // A sign-in in another tab of this console (through the provider) leaves its token in storage.
  useEffect(() => {
    const taken = (event: StorageEvent) => {
      if (event.key === TOKEN_KEY && event.newValue && sessionEnded.value)
        void action.run(() => carryOn(event.newValue!));
    };
    addEventListener('storage', taken);
    return () => removeEventListener('storage', taken);
  }, []);
  if (!account) return null;
  const submit = () =>
    action.run(async () => {
      const { token } = await api.post('/v1/auth/login', {
        body: { email: account.email ?? '', password: password.value },
      });
      password.value = '';
      await carryOn(token);
    });
  return (
    <dialog
      ref={dialog}
      class="sign-in-again"
      aria-labelledby="sign-in-again-title"
      // Escape would leave a page whose every write fails: the dialog stays until signed in or out.
      onCancel={(event) => event.preventDefault()}
    >
      {ended && (
        <form class="form" onSubmit={onSubmit(submit)} aria-label={t('console.sign_in_again.label')}>
          <h2 id="sign-in-again-title">{t('console.sign_in_again.title')}</h2>
          <p>
            {rich('console.sign_in_again.text', {
              email: account.email ?? '',
              strong: (words) => <strong>{words}</strong>,
            })}
          </p>
          <Field
            label={t('console.fields.password')}
            type="password"
            autocomplete="current-password"
            required
            value={password}
            action={action}
            name="password"
          />
          <Problem action={action} />
          <div class="save-row">
            <button type="submit" class="primary" disabled={action.busy.value}>
              {t('console.sign_in.title')}
            </button>
            <button
              type="button"
              class="quiet"
              onClick={() => {
                // Starting over signed out: what this tab kept goes too, as with the bar's Sign out.
                dropAll();
                forget();
              }}
            >
              {t('console.sign_out')}
            </button>
          </div>
          <p class="hint">
            {rich('console.sign_in_again.provider', {
              link: (words) => (
                <a href="/" target="_blank" rel="noopener">
                  {words}
                </a>
              ),
            })}
          </p>
        </form>
      )}
    </dialog>
  );
}
