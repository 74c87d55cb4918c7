/*
 * The Account page's password: changed with the current one (`PUT /v1/user/me/password` → 204),
 * which signs out every other session. An account opened through the sign-in provider has no
 * password: it sets its first one with a reset link (`POST /v1/auth/password_reset`), see
 * docs/api.md#an-accounts-life.
 */
import { useSignal } from '@preact/signals';
import { ApiError, type User } from 'workshop-sdk';
import { api, InputProblem } from '../api';
import { Field, Problem, SubmitRow, onSubmit, useAction } from '../forms';
import { inWords } from './calls';
import { sessionsChanged } from './sessions';
import { t } from '../i18n';

/** What the service asks of a new password (it refuses a shorter one). */
const MIN_PASSWORD = 8;

export function Password(props: { account: User; hasPassword: boolean | null; onNoPassword: () => void }) {
  if (props.hasPassword === false) return <FirstPassword email={props.account.email ?? ''} />;
  return <ChangeForm onNoPassword={props.onNoPassword} />;
}

function ChangeForm(props: { onNoPassword: () => void }) {
  const current = useSignal('');
  const password = useSignal('');
  const again = useSignal('');
  const done = useSignal(false);
  const action = useAction();
  const submit = () =>
    action.run(async () => {
      done.value = false;
      if (password.value.length < MIN_PASSWORD)
        throw new InputProblem(t('console.account.password.too_short', { count: MIN_PASSWORD }), 'password');
      if (password.value !== again.value) throw new InputProblem(t('console.account.password.differ'), 'again');
      try {
        await api.put('/v1/user/me/password', {
          body: { current_password: current.value, password: password.value },
        });
      } catch (err) {
        if (err instanceof ApiError && err.code === 'forbidden') props.onNoPassword();
        throw inWords(err, {
          invalid_credentials: [t('console.account.password.wrong'), 'current_password'],
        });
      }
      current.value = password.value = again.value = '';
      done.value = true;
      sessionsChanged.value++;
    });
  return (
    <form class="form" onSubmit={onSubmit(submit)} aria-label={t('console.account.password.form')}>
      <Field
        label={t('console.fields.current_password')}
        type="password"
        name="current_password"
        autocomplete="current-password"
        required
        value={current}
        action={action}
      />
      <Field
        label={t('console.fields.new_password')}
        type="password"
        name="password"
        autocomplete="new-password"
        required
        hint={t('console.account.password.hint', { count: MIN_PASSWORD })}
        value={password}
        action={action}
      />
      <Field
        label={t('console.account.password.again')}
        type="password"
        name="again"
        autocomplete="new-password"
        required
        value={again}
        action={action}
      />
      <SubmitRow
        action={action}
        label={t('console.account.password.submit')}
        status={done.value ? t('console.account.password.changed') : ''}
      />
    </form>
  );
}

/** An account without a password (opened through the provider): a reset link sets the first one. */
function FirstPassword({ email }: { email: string }) {
  const sent = useSignal(false);
  const action = useAction();
  return (
    <div class="account-first-password">
      <p>{t('console.account.password.none')}</p>
      <button
        type="button"
        disabled={action.busy.value}
        onClick={() =>
          void action.run(async () => {
            await api.post('/v1/auth/password_reset', { body: { email } });
            sent.value = true;
          })
        }
      >
        {t('console.account.password.mail_link')}
      </button>
      <Problem action={action} />
      <p role="status" class="done">
        {sent.value && t('console.account.password.mailed', { email, minutes: 30 })}
      </p>
    </div>
  );
}
