/*
 * Signed out: sign in, or create an account (the address is confirmed later from the mail), or join
 * a workshop with its code on the participant page. After either, the console goes on to where the
 * person was headed (`/workshops/<id>`, an invitation), or the workshops.
 */
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { api } from '../api';
import { Field, Problem, onSubmit, useAction } from '../forms';
import { rich, t } from '../i18n';
import { providerProblem, signIn, startProviderSignIn } from '../session';
import { ForgotPasswordForm, MIN_PASSWORD } from './reset';
import { deviceTimeZone } from '../../shared/time-zone';

export function SignedOut(props: { mode: 'sign-in' | 'sign-up'; email?: string; reason?: string }) {
  const mode = useSignal(props.mode);
  return (
    <main class="signed-out">
      <h1>{t('console.title')}</h1>
      {props.reason && (
        <p class="notice" role="status">
          {props.reason}
        </p>
      )}
      {providerProblem.value && (
        <p class="problem notice" role="alert">
          {t(providerProblem.value)}
        </p>
      )}
      <ProviderSignIn />
      <div class="choices" role="group" aria-label={t('console.signed_out.choices')}>
        <button type="button" aria-pressed={mode.value === 'sign-in'} onClick={() => (mode.value = 'sign-in')}>
          {t('console.sign_in.title')}
        </button>
        <button type="button" aria-pressed={mode.value === 'sign-up'} onClick={() => (mode.value = 'sign-up')}>
          {t('console.sign_up.title')}
        </button>
      </div>
      {mode.value === 'sign-in' ? <SignInForm email={props.email} /> : <SignUpForm email={props.email ?? ''} />}
      <p class="join-instead">
        {rich('console.signed_out.join_instead', { link: (words) => <a href="/join">{words}</a> })}
      </p>
    </main>
  );
}

/**
 * "Sign in with <name>" when the service has an OpenID provider (docs/integrations.md#single-sign-on):
 * this tab goes to the provider and comes back to this address. A button, not a link: the sign-in
 * is this tab's (its one-time value is kept here), so it never opens in another one.
 */
export function ProviderSignIn() {
  const name = useSignal<string | null>(null);
  useEffect(() => {
    api.get('/v1/auth/oidc').then(
      (status) => (name.value = status.enabled ? status.name : null),
      // Without the answer the password forms still work.
      () => undefined,
    );
  }, []);
  if (!name.value) return null;
  return (
    <p class="provider-sign-in">
      <button type="button" class="primary" onClick={() => startProviderSignIn(location.pathname + location.search)}>
        {t('console.sign_in.with_provider', { name: name.value })}
      </button>
    </p>
  );
}

/** Signing in with a password; "Forgot your password?" swaps it for asking a reset link (views/reset.tsx). */
export function SignInForm(props: { email?: string } = {}) {
  const email = useSignal(props.email ?? '');
  const password = useSignal('');
  const forgot = useSignal(false);
  const action = useAction();
  if (forgot.value) return <ForgotPasswordForm email={email.value} onBack={() => (forgot.value = false)} />;
  const submit = () =>
    action.run(async () => {
      const { token } = await api.post('/v1/auth/login', { body: { email: email.value, password: password.value } });
      await signIn(token);
    });
  return (
    <form class="form" onSubmit={onSubmit(submit)} aria-label={t('console.sign_in.title')}>
      <Field
        label={t('console.fields.email')}
        type="email"
        autocomplete="email"
        required
        value={email}
        action={action}
        name="email"
      />
      <Field
        label={t('console.fields.password')}
        type="password"
        autocomplete="current-password"
        required
        value={password}
        action={action}
        name="password"
      />
      <button type="submit" class="primary" disabled={action.busy.value}>
        {t('console.sign_in.title')}
      </button>
      <Problem action={action} />
      <p>
        <button type="button" class="link" onClick={() => (forgot.value = true)}>
          {t('console.sign_in.forgot')}
        </button>
      </p>
    </form>
  );
}

function SignUpForm(props: { email: string }) {
  const name = useSignal('');
  const email = useSignal(props.email);
  const password = useSignal('');
  const action = useAction();
  const submit = () =>
    action.run(async () => {
      const { token } = await api.post('/v1/auth/signup', {
        body: { name: name.value, email: email.value, password: password.value, time_zone: deviceTimeZone() },
      });
      await signIn(token);
    });
  return (
    <form class="form" onSubmit={onSubmit(submit)} aria-label={t('console.sign_up.title')}>
      <Field
        label={t('console.sign_up.name')}
        autocomplete="name"
        required
        maxLength={200}
        value={name}
        action={action}
        name="name"
      />
      <Field
        label={t('console.fields.email')}
        type="email"
        autocomplete="email"
        required
        value={email}
        action={action}
        name="email"
      />
      <Field
        label={t('console.fields.password')}
        type="password"
        autocomplete="new-password"
        required
        hint={t('console.password_hint', { count: MIN_PASSWORD })}
        value={password}
        action={action}
        name="password"
      />
      <button type="submit" class="primary" disabled={action.busy.value}>
        {t('console.sign_up.submit')}
      </button>
      <Problem action={action} />
      <p class="hint">{t('console.sign_up.mailed')}</p>
    </form>
  );
}
