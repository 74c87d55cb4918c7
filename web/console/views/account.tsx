/*
 * `/account`: the signed-in person's own settings (docs/pages.md#your-account), one section each:
 * the profile, the address, the password, where they are signed in, their personal API tokens,
 * their data, and deleting the account. Each section is its own file in `account/`.
 */
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { ApiError } from 'workshop-sdk';
import { Address } from '../account/address';
import { DeleteAccount, readDeletionPreview } from '../account/deletion';
import { YourData } from '../account/data';
import { Language } from '../account/language';
import { Password } from '../account/password';
import { Profile } from '../account/profile';
import { Sessions } from '../account/sessions';
import { Tokens } from '../account/tokens';
import { Panel } from '../forms';
import { t } from '../i18n';
import { Link } from '../router';
import { forget, me } from '../session';

export function AccountSettings() {
  const account = me.value;
  /**
   * Whether the account has a password: the deletion's preview says so (`password_required`).
   * Null while unknown; a password change then learns it from the service's refusal.
   */
  const hasPassword = useSignal<boolean | null>(null);
  useEffect(() => {
    readDeletionPreview().then(
      (preview) => (hasPassword.value = preview.password_required),
      (err: unknown) => {
        // The session ended elsewhere: the console starts over signed out, as on any view.
        if (err instanceof ApiError && err.code === 'unauthenticated') forget();
      },
    );
  }, []);
  if (!account) return null;
  const noPassword = () => (hasPassword.value = false);
  return (
    <main class="account-page">
      <p class="crumbs">
        <Link href="/">{t('console.title')}</Link>
      </p>
      <h1>{t('console.account.title')}</h1>
      <Panel title={t('console.account.profile.title')}>
        <Profile account={account} />
      </Panel>
      <Panel title={t('console.account.language.title')}>
        <Language account={account} />
      </Panel>
      <Panel title={t('console.account.address.title')}>
        <Address key={account.email} account={account} hasPassword={hasPassword.value} onNoPassword={noPassword} />
      </Panel>
      <Panel title={t('console.account.password.title')}>
        <Password account={account} hasPassword={hasPassword.value} onNoPassword={noPassword} />
      </Panel>
      <Panel title={t('console.account.sessions.title')}>
        <Sessions />
      </Panel>
      <Panel title={t('console.account.tokens.title')}>
        <Tokens confirmed={account.confirmed_at !== null} />
      </Panel>
      <Panel title={t('console.account.data.title')}>
        <YourData />
      </Panel>
      <Panel title={t('console.account.deletion.title')} class="danger-zone">
        <DeleteAccount />
      </Panel>
    </main>
  );
}
