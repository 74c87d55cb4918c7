/*
 * The facilitator console (`/`): signed out, sign in or create an account; signed in, the
 * workshops and each workshop's console. Built on the client SDK's public entry points like the
 * screen and the participant page, under the same Content-Security-Policy: no inline script, and
 * every text people wrote set as text (Preact never parses strings as markup). See docs/pages.md.
 */
import { render, type ComponentChildren } from 'preact';
import { useEffect } from 'preact/hooks';
import { signOut, loadMe, me, takeProviderSignIn } from './session';
import { startLanguage, t } from './i18n';
import { location$, Link } from './router';
import { farewell } from './account/deletion';
import { AccountSettings } from './views/account';
import { Confirm } from './views/confirm';
import { Home } from './views/home';
import { Invitation, InvitationSignedOut } from './views/invitation';
import { ResetPassword } from './views/reset';
import { OrganizationSettings } from './views/organization';
import { SignedOut } from './views/signed-out';
import { SignInAgain } from './views/sign-in-again';
import { WaitingWrites } from './views/waiting-writes';
import { WorkshopConsole } from './workshop/shell';

/** Which view an address shows. */
function route(path: string): {
  view: 'home' | 'signup' | 'confirm' | 'reset' | 'invitation' | 'workshop' | 'organization' | 'account';
  id: string;
} {
  const workshop = /^\/workshops\/([^/]+)\/?$/.exec(path);
  if (workshop) return { view: 'workshop', id: decodeURIComponent(workshop[1]!) };
  const organization = /^\/organizations\/([^/]+)\/?$/.exec(path);
  if (organization) return { view: 'organization', id: decodeURIComponent(organization[1]!) };
  const invitation = /^\/invitations\/([^/]+)\/?$/.exec(path);
  if (invitation) return { view: 'invitation', id: decodeURIComponent(invitation[1]!) };
  if (path === '/signup') return { view: 'signup', id: '' };
  if (path === '/confirm') return { view: 'confirm', id: '' };
  if (path === '/reset') return { view: 'reset', id: '' };
  if (path === '/account' || path === '/account/') return { view: 'account', id: '' };
  return { view: 'home', id: '' };
}

function Console() {
  const { path, query } = location$.value;
  const { view, id } = route(path);
  const account = me.value;
  useEffect(() => {
    document.body.dataset.status = account === undefined ? 'loading' : account ? 'signed-in' : 'signed-out';
    // A deleted account's farewell is said once, until someone signs in.
    if (account) farewell.value = '';
  }, [account]);

  // The mail's confirmation link: signed out, the page asks to sign in first (views/confirm.tsx).
  if (view === 'confirm') return <Frame>{<Confirm token={query.get('token') ?? ''} />}</Frame>;
  // The password reset mail's link: it signs the tab in, whoever was signed in before (views/reset.tsx).
  if (view === 'reset') return <Frame>{<ResetPassword token={query.get('token') ?? ''} />}</Frame>;
  if (account === undefined) return <p role="status">{t('console.loading')}</p>;
  if (account === null) {
    const reason =
      view === 'invitation'
        ? t('console.signed_out.reason.invitation')
        : view === 'workshop'
          ? t('console.signed_out.reason.workshop')
          : view === 'organization'
            ? t('console.signed_out.reason.organization')
            : view === 'account'
              ? t('console.signed_out.reason.account')
              : farewell.value || undefined;
    return (
      <Frame>
        {view === 'invitation' ? (
          <InvitationSignedOut token={id} />
        ) : (
          <SignedOut
            mode={view === 'signup' ? 'sign-up' : 'sign-in'}
            email={query.get('email') ?? ''}
            reason={reason}
          />
        )}
      </Frame>
    );
  }
  return (
    <Frame>
      {view === 'workshop' ? (
        <WorkshopConsole key={id} id={id} />
      ) : view === 'organization' ? (
        <OrganizationSettings key={id} id={id} />
      ) : view === 'account' ? (
        <AccountSettings />
      ) : view === 'invitation' ? (
        <Invitation token={id} />
      ) : (
        <Home />
      )}
    </Frame>
  );
}

/** The bar above every view: the way home, and who is signed in. */
function Frame(props: { children: ComponentChildren }) {
  const account = me.value;
  return (
    <>
      <header class="bar">
        <Link href="/" class="home-link">
          {t('console.title')}
        </Link>
        {account && (
          <span class="account">
            <Link href="/account" class="account-link">
              <span class="who">{account.name}</span>
              <span class="visually-hidden"> {t('console.bar.your_account')}</span>
            </Link>
            <button type="button" class="quiet" onClick={() => void signOut()}>
              {t('console.sign_out')}
            </button>
          </span>
        )}
      </header>
      {account && <WaitingWrites />}
      {props.children}
      <SignInAgain />
    </>
  );
}

const root = document.getElementById('console')!;
takeProviderSignIn();
// Nothing is drawn before its words are there: the server's "Loading…" stays until then.
void startLanguage().then(() => {
  root.replaceChildren();
  render(<Console />, root);
});
loadMe().catch(() => {
  // The server cannot be reached: signed out for now; signing in says why it fails.
  me.value = null;
});
