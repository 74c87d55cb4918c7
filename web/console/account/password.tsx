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

/** What the service asks of a new password (it refuses a shorter one). */
const MIN_PASSWORD = 8;

/** How an account without a password gets one, said wherever a password is asked for. */
export const NO_PASSWORD =
  'Set one with a reset link: it is mailed to your address, and the page it opens sets the password.';

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
        throw new InputProblem(`The new password needs at least ${MIN_PASSWORD} characters.`, 'password');
      if (password.value !== again.value)
        throw new InputProblem('The two new passwords differ: type the same one twice.', 'again');
      try {
        await api.put('/v1/user/me/password', {
          body: { current_password: current.value, password: password.value },
        });
      } catch (err) {
        if (err instanceof ApiError && err.code === 'forbidden') props.onNoPassword();
        throw inWords(err, {
          invalid_credentials: ['That is not your current password: nothing was changed.', 'current_password'],
        });
      }
      current.value = password.value = again.value = '';
      done.value = true;
      sessionsChanged.value++;
    });
  return (
    <form class="form" onSubmit={onSubmit(submit)} aria-label="Change your password">
      <Field
        label="Current password"
        type="password"
        name="current_password"
        autocomplete="current-password"
        required
        value={current}
        action={action}
      />
      <Field
        label="New password"
        type="password"
        name="password"
        autocomplete="new-password"
        required
        hint={`At least ${MIN_PASSWORD} characters. Changing it signs you out everywhere else.`}
        value={password}
        action={action}
      />
      <Field
        label="New password again"
        type="password"
        name="again"
        autocomplete="new-password"
        required
        value={again}
        action={action}
      />
      <SubmitRow
        action={action}
        label="Change the password"
        status={
          done.value
            ? 'Your password is changed. Every other device and browser signed in to your account was signed out; this one stays signed in.'
            : ''
        }
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
      <p>
        You sign in through your organization’s provider, and this account has no password yet. {NO_PASSWORD} Setting it
        signs you out everywhere else (the link’s page signs you in again) and ends your personal API tokens.
      </p>
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
        Mail me a link to set a password
      </button>
      <Problem action={action} />
      <p role="status" class="done">
        {sent.value && `A mail with the link is on its way to ${email}. The link works for 30 minutes.`}
      </p>
    </div>
  );
}
