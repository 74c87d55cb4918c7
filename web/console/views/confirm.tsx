/*
 * `/confirm?token=…`, where the signup mail's link lands, and an address change's (to the new
 * address: using it makes it the account's, or says it was taken meanwhile). Confirming proves the address, which ends
 * every other way into the account made before (docs/api.md#an-address-is-proven-once); sent with the
 * account's own session, that session and the password stay. So a signed-in account confirms at
 * once, and a signed-out visitor is asked to sign in first; confirming without signing in is offered
 * beside it, saying what it ends, for the person who holds the mailbox but not the password (someone
 * else signed up with their address). See docs/pages.md#confirming-an-address.
 */
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { ApiError } from 'workshop-sdk';
import { api, problemText } from '../api';
import { t } from '../i18n';
import { Link } from '../router';
import { forget, loadMe, me, signOut } from '../session';
import { ProviderSignIn, SignInForm } from './signed-out';
import { tabToken } from '../tab-token';

/** The link's token, kept for this tab while the visitor signs in (through the provider, too). */
const kept = tabToken('workshop-console-confirmation');

type Outcome =
  | { state: 'waiting' | 'sending' }
  | { state: 'done'; signedIn: boolean }
  | { state: 'refused'; message: string; otherAccount: boolean };

export function Confirm(props: { token: string }) {
  // The token is kept for this tab, and taken out of the address (the history, shared screens).
  const token = useSignal(props.token ? (kept.set(props.token), props.token) : kept.get());
  const outcome = useSignal<Outcome>({ state: 'waiting' });
  const account = me.value;
  useEffect(() => history.replaceState(null, '', location.pathname), []);

  const send = (signedIn: boolean) => {
    outcome.value = { state: 'sending' };
    // The console's client carries the session when signed in, and none when signed out.
    api.post('/v1/auth/confirm', { body: { token: token.value } }).then(
      () => {
        kept.set('');
        outcome.value = { state: 'done', signedIn };
        // A signed-in account now reads as confirmed (a read begun before the confirmation is overtaken).
        loadMe().catch(() => undefined);
      },
      (err: unknown) => {
        if (err instanceof ApiError && err.status === 401) {
          // The session ended meanwhile: signed out, the visitor chooses again.
          forget();
          outcome.value = { state: 'waiting' };
          return;
        }
        // Another account's session is refused, and the link kept for the right one.
        const otherAccount = err instanceof ApiError && err.code === 'forbidden';
        if (!otherAccount) kept.set('');
        outcome.value = { state: 'refused', message: refusalText(err), otherAccount };
      },
    );
  };
  const signOutAndChoose = () => void signOut().then(() => (outcome.value = { state: 'waiting' }));

  // Signed in to an account still to confirm: the link is most likely its own, sent with its session.
  useEffect(() => {
    if (token.value && account && account.confirmed_at === null && outcome.value.state === 'waiting') send(true);
  }, [token.value, account, outcome.value]);

  return (
    <main class="narrow confirm">
      <h1>{t('console.confirm.title')}</h1>
      <ConfirmBody
        token={token.value}
        outcome={outcome.value}
        onConfirmSignedOut={() => send(false)}
        onConfirmSignedIn={() => send(true)}
        onSignOut={signOutAndChoose}
      />
      <p>
        <Link href="/">{t('console.go_home')}</Link>
      </p>
    </main>
  );
}

/**
 * A refusal in words. `email_taken` comes only from an address change's link: another account took
 * the new address between the change being asked for and the link being opened.
 */
function refusalText(err: unknown): string {
  if (err instanceof ApiError && err.code === 'email_taken') return t('console.confirm.email_taken');
  return problemText(err);
}

function ConfirmBody(props: {
  token: string;
  outcome: Outcome;
  onConfirmSignedOut: () => void;
  onConfirmSignedIn: () => void;
  onSignOut: () => void;
}) {
  const { outcome } = props;
  const account = me.value;
  if (outcome.state === 'done') {
    return outcome.signedIn ? (
      <p role="status" class="done">
        {t('console.confirm.done_signed_in')}
      </p>
    ) : (
      <>
        <p role="status" class="done">
          {t('console.confirm.done')}
        </p>
        <p>{t('console.confirm.done_ended')}</p>
      </>
    );
  }
  if (outcome.state === 'refused') {
    return (
      <>
        <p role="alert" class="problem">
          {outcome.message}
        </p>
        {outcome.otherAccount && account && <SignOutButton onSignOut={props.onSignOut} />}
      </>
    );
  }
  if (!props.token) {
    return (
      <p role="alert" class="problem">
        {t('console.confirm.no_token')}
      </p>
    );
  }
  if (outcome.state === 'sending' || account === undefined) return <p role="status">{t('console.confirm.sending')}</p>;
  if (account) {
    // Confirmed already: the link is this account's change of address, another account's, or one
    // sent before this account confirmed. Nothing is sent unasked: an old link of this account
    // would end its other sessions again, and another account's is refused (nothing changes).
    return (
      <>
        <p class="notice" role="status">
          {t('console.confirm.signed_in_already', { email: account.email ?? '' })}
        </p>
        <p>
          <button type="button" class="primary" onClick={props.onConfirmSignedIn}>
            {t('console.confirm.use_with_account')}
          </button>
        </p>
        <SignOutButton onSignOut={props.onSignOut} />
      </>
    );
  }
  return <SignInToConfirm onConfirmSignedOut={props.onConfirmSignedOut} />;
}

/** Signing out shows the signed-out choices, the link still kept. */
function SignOutButton(props: { onSignOut: () => void }) {
  return (
    <p>
      <button type="button" onClick={props.onSignOut}>
        {t('console.sign_out')}
      </button>
    </p>
  );
}

/** Signed out: sign in first, so the password the account was made with keeps working; or confirm without. */
function SignInToConfirm(props: { onConfirmSignedOut: () => void }) {
  return (
    <>
      <p class="notice" role="status">
        {t('console.confirm.sign_in_first')}
      </p>
      <ProviderSignIn />
      <SignInForm />
      <section class="confirm-signed-out" aria-labelledby="confirm-signed-out">
        <h2 id="confirm-signed-out">{t('console.confirm.without.title')}</h2>
        <p>{t('console.confirm.without.text')}</p>
        <button type="button" class="danger" onClick={props.onConfirmSignedOut}>
          {t('console.confirm.without.submit')}
        </button>
      </section>
    </>
  );
}
