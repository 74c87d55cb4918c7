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
import { t } from '../i18n';
import { Link } from '../router';
import { signIn } from '../session';
import { tabToken } from '../tab-token';

/** What a password needs, said before it is sent (the service refuses a shorter one). */
export const MIN_PASSWORD = 8;

/** The link's token, kept for this tab once out of the address bar, so a reload still finds it. */
const kept = tabToken('workshop-console-reset');

/** How long to wait, from `Retry-After`: seconds under a minute, else whole minutes, else "a few minutes". */
function waitFor(seconds: number | null): { unit: 'second' | 'minute' | 'unknown'; count: number } {
  if (seconds === null) return { unit: 'unknown', count: 0 };
  if (seconds < 60) return { unit: 'second', count: seconds };
  return { unit: 'minute', count: Math.ceil(seconds / 60) };
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
          throw new InputProblem(t('console.reset.wait', waitFor(err.retryAfter)));
        throw err;
      }
      sentTo.value = email.value.trim();
    });
  return (
    <form ref={form} class="form" onSubmit={onSubmit(submit)} aria-label={props.title ?? t('console.reset.ask.title')}>
      <p>{t('console.reset.ask.intro')}</p>
      <Field
        label={t('console.fields.email')}
        type="email"
        autocomplete="email"
        required
        value={email}
        action={action}
        name="email"
      />
      <div class="save-row">
        <button type="submit" class="primary" disabled={action.busy.value}>
          {t('console.reset.ask.submit')}
        </button>
        {props.onBack && (
          <button type="button" class="link" onClick={props.onBack}>
            {t('console.reset.ask.back')}
          </button>
        )}
      </div>
      <Problem action={action} />
      <p role="status" class="done">
        {sentTo.value && t('console.reset.ask.sent', { email: sentTo.value })}
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
      <h1>{t('console.reset.title')}</h1>
      {outcome.value.state === 'done' ? (
        <>
          <p role="status" class="done">
            {t('console.reset.done')}
          </p>
          <p>{t('console.reset.done_elsewhere')}</p>
        </>
      ) : outcome.value.state === 'dead' || !token.value ? (
        <>
          <p role="alert" class="problem">
            {token.value ? t('console.reset.dead') : t('console.reset.no_token')}
          </p>
          <h2>{t('console.reset.ask_again')}</h2>
          <ForgotPasswordForm title={t('console.reset.ask_again')} />
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
        <Link href="/">{t('console.go_home')}</Link>
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
        throw new InputProblem(t('console.reset.too_short', { count: MIN_PASSWORD }), 'password');
      if (password.value !== again.value) throw new InputProblem(t('console.reset.differ'), 'again');
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
    <form class="form" onSubmit={onSubmit(submit)} aria-label={t('console.reset.title')}>
      <Field
        label={t('console.reset.new_password')}
        type="password"
        autocomplete="new-password"
        required
        hint={t('console.reset.new_password_hint', { count: MIN_PASSWORD })}
        value={password}
        action={action}
        name="password"
      />
      <Field
        label={t('console.reset.again')}
        type="password"
        autocomplete="new-password"
        required
        value={again}
        action={action}
        name="again"
      />
      <button type="submit" class="primary" disabled={action.busy.value}>
        {t('console.reset.submit')}
      </button>
      <Problem action={action} />
    </form>
  );
}
