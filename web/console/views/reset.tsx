/*
 * A forgotten password (docs/api.md#an-accounts-life): "Forgot your password?" on the sign-in form
 * asks for the address and has a link mailed to it; the link (`/reset?token=…`) opens this page,
 * which sets the new password, signs the tab in with the new session and says every other device
 * was signed out. A link that no longer works says so and offers to ask for a new one. See
 * docs/pages.md#a-forgotten-password.
 */
import { useSignal } from '@preact/signals';
import { useEffect, useRef } from 'preact/hooks';
import { ApiError } from 'workshop-sdk';
import { api, InputProblem } from '../api';
import { Field, Problem, onSubmit, useAction } from '../forms';
import { Link } from '../router';
import { signIn } from '../session';
import { tabToken } from '../tab-token';

/** What a password needs, said before it is sent (the service refuses a shorter one). */
const MIN_PASSWORD = 8;

/** The link's token, kept for this tab once out of the address bar, so a reload still finds it. */
const kept = tabToken('workshop-console-reset');

/** "10 minutes", "45 seconds": how long to wait, from `Retry-After`. */
function waitFor(seconds: number | null): string {
  if (seconds === null) return 'a few minutes';
  if (seconds < 60) return seconds === 1 ? '1 second' : `${seconds} seconds`;
  const minutes = Math.ceil(seconds / 60);
  return minutes === 1 ? '1 minute' : `${minutes} minutes`;
}

/**
 * Asks for a reset link for an address. The service answers the same whether an account has the
 * address or not, so the page says only that a mail is on its way if one does.
 */
export function ForgotPasswordForm(props: { email?: string; onBack?: () => void; title?: string }) {
  const email = useSignal(props.email ?? '');
  const sentTo = useSignal('');
  const action = useAction();
  const form = useRef<HTMLFormElement>(null);
  // Opened from the sign-in form: the address is where the person goes on typing.
  useEffect(() => {
    if (props.onBack) form.current?.querySelector('input')?.focus();
  }, []);
  const submit = () =>
    action.run(async () => {
      sentTo.value = '';
      try {
        await api.post('/v1/auth/password_reset', { body: { email: email.value.trim() } });
      } catch (err) {
        if (err instanceof ApiError && err.code === 'rate_limited')
          throw new InputProblem(
            `Too many links were asked for this address, or from this network. Wait ${waitFor(err.retryAfter)} and ask again; the latest link mailed still works until its 30 minutes are over.`,
          );
        throw err;
      }
      sentTo.value = email.value.trim();
    });
  return (
    <form ref={form} class="form" onSubmit={onSubmit(submit)} aria-label={props.title ?? 'Reset your password'}>
      <p>Type the address of your account: a link to choose a new password is mailed to it.</p>
      <Field
        label="E-mail address"
        type="email"
        autocomplete="email"
        required
        value={email}
        action={action}
        name="email"
      />
      <div class="save-row">
        <button type="submit" class="primary" disabled={action.busy.value}>
          Mail me a link
        </button>
        {props.onBack && (
          <button type="button" class="link" onClick={props.onBack}>
            Back to sign in
          </button>
        )}
      </div>
      <Problem action={action} />
      <p role="status" class="done">
        {sentTo.value &&
          `If an account has the address ${sentTo.value}, a mail with a link to choose a new password is on its way. The link works for 30 minutes; asking again makes a new one and the one before stops working.`}
      </p>
    </form>
  );
}

type Outcome = { state: 'waiting' } | { state: 'done' } | { state: 'dead' };

/** `/reset?token=…`, where the mail's link lands. */
export function ResetPassword(props: { token: string }) {
  // The token is kept for this tab, and taken out of the address (the history, shared screens).
  const token = useSignal(props.token ? (kept.set(props.token), props.token) : kept.get());
  const outcome = useSignal<Outcome>({ state: 'waiting' });
  useEffect(() => history.replaceState(null, '', location.pathname), []);

  return (
    <main class="narrow reset">
      <h1>Choose a new password</h1>
      {outcome.value.state === 'done' ? (
        <>
          <p role="status" class="done">
            Your new password is set, and you are signed in.
          </p>
          <p>
            Every other device and browser that was signed in to your account has been signed out, and its API tokens no
            longer work. Sign in there again with the new password.
          </p>
        </>
      ) : outcome.value.state === 'dead' || !token.value ? (
        <>
          <p role="alert" class="problem">
            {token.value
              ? 'This link no longer works: it was used already, a newer one was asked for, or its 30 minutes are over.'
              : 'This address has no reset link in it: open the link from the mail again.'}
          </p>
          <h2>Ask for a new link</h2>
          <ForgotPasswordForm title="Ask for a new link" />
        </>
      ) : (
        <NewPasswordForm
          token={token.value}
          onDone={() => {
            kept.set('');
            outcome.value = { state: 'done' };
          }}
          onDead={() => {
            kept.set('');
            outcome.value = { state: 'dead' };
          }}
        />
      )}
      <p>
        <Link href="/">Go to your workshops</Link>
      </p>
    </main>
  );
}

function NewPasswordForm(props: { token: string; onDone: () => void; onDead: () => void }) {
  const password = useSignal('');
  const again = useSignal('');
  const action = useAction();
  const submit = () =>
    action.run(async () => {
      if (password.value.length < MIN_PASSWORD)
        throw new InputProblem(`The password needs at least ${MIN_PASSWORD} characters.`, 'password');
      if (password.value !== again.value)
        throw new InputProblem('The two passwords differ: type the same one twice.', 'again');
      let session: { token: string };
      try {
        session = await api.post('/v1/auth/password_reset/confirm', {
          body: { token: props.token, password: password.value },
        });
      } catch (err) {
        if (err instanceof ApiError && err.code === 'invalid_request' && err.details[0]?.path === 'token') {
          props.onDead();
          return;
        }
        throw err;
      }
      // The password is set and the link used whatever follows: the page says so even if reading the account fails.
      props.onDone();
      await signIn(session.token).catch(() => undefined);
    });
  return (
    <form class="form" onSubmit={onSubmit(submit)} aria-label="Choose a new password">
      <Field
        label="New password"
        type="password"
        autocomplete="new-password"
        required
        hint={`At least ${MIN_PASSWORD} characters. Setting it signs you out on every other device.`}
        value={password}
        action={action}
        name="password"
      />
      <Field
        label="New password again"
        type="password"
        autocomplete="new-password"
        required
        value={again}
        action={action}
        name="again"
      />
      <button type="submit" class="primary" disabled={action.busy.value}>
        Set the password
      </button>
      <Problem action={action} />
    </form>
  );
}
