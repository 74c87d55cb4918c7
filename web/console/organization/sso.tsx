/*
 * Single sign-on for an organization (docs/integrations.md#requiring-it-for-an-organization): the
 * `sso_required` setting, named with the server's OpenID provider (`GET /v1/auth/oidc`) and
 * explained. While it is on, sessions opened with a password are kept out of the organization,
 * this page included, except for turning it off: `KeptOut` says so to such a session, offers
 * signing in with the provider, and lets an admin turn the requirement off, as the service allows.
 */
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { ApiError } from 'workshop-sdk';
import { api, InputProblem } from '../api';
import { ConfirmButton, onSubmit, Problem, SubmitRow, useAction } from '../forms';
import { Link } from '../router';
import { startProviderSignIn } from '../session';
import type { Organization } from './types';
import { t } from '../i18n';

/** The provider's name, null when the server has none, undefined until known. */
function useProviderName() {
  const name = useSignal<string | null | undefined>(undefined);
  useEffect(() => {
    api.get('/v1/auth/oidc').then(
      (status) => (name.value = status.enabled ? status.name : null),
      () => (name.value = null),
    );
  }, []);
  return name;
}

export function SingleSignOn(props: { organization: Organization; onSaved: () => Promise<void> }) {
  const { organization } = props;
  const provider = useProviderName();
  const required = useSignal(organization.sso_required);
  const saving = useAction();
  const saved = useSignal('');
  const save = () =>
    saving.run(async () => {
      saved.value = '';
      const next = required.value;
      await api.put('/v1/organizations/{id}', {
        params: { path: { id: organization.id } },
        body: { sso_required: next },
      });
      saved.value = t('console.organization.sso.saved', { required: next ? 'yes' : 'no' });
      // A session opened with a password is kept out from now on: the page then says so.
      await props.onSaved();
    });

  const name = provider.value;
  const unsaved = required.value !== organization.sso_required;
  if (name === undefined) return <p class="empty">{t('console.loading')}</p>;
  return (
    <form class="form sso" aria-label={t('console.organization.sso.title')} onSubmit={onSubmit(save)}>
      <p class="sso-explained">
        {name ? t('console.organization.sso.explained', { name }) : t('console.organization.sso.no_provider')}
      </p>
      <label class="choice">
        <input
          type="checkbox"
          name="sso_required"
          checked={required.value}
          disabled={!name && !organization.sso_required}
          onChange={(event) => (required.value = event.currentTarget.checked)}
        />
        <span>
          {name ? t('console.organization.sso.require_with', { name }) : t('console.organization.sso.require')}
        </span>
      </label>
      {name && <p class="hint">{t('console.organization.sso.yourself', { name })}</p>}
      <SubmitRow action={saving} label={t('console.common.save')} status={unsaved ? '' : saved.value}>
        {unsaved && <span class="hint">{t('console.common.not_saved')}</span>}
      </SubmitRow>
    </form>
  );
}

/**
 * What a session kept out by the organization's `sso_required` sees: why, signing in with the
 * provider, and for an admin the way out (`PUT /v1/organizations/:id {sso_required: false}` stays
 * open to admins however they signed in).
 */
export function KeptOut(props: { organizationId: string; onReopen: () => Promise<void> }) {
  const provider = useProviderName();
  const turning = useAction();
  const name = provider.value;
  const turnOff = () =>
    turning.run(async () => {
      try {
        await api.put('/v1/organizations/{id}', {
          params: { path: { id: props.organizationId } },
          body: { sso_required: false },
        });
      } catch (err) {
        // A member who is no admin is refused (403, `sso_required` or `forbidden`).
        if (err instanceof ApiError && err.status === 403)
          throw new InputProblem(t('console.organization.sso.only_admins'));
        throw err;
      }
      await props.onReopen();
    });
  return (
    <main class="narrow organization-kept-out">
      <h1>{t('console.organization.title')}</h1>
      <p class="notice">
        {name ? t('console.organization.sso.kept_out_named', { name }) : t('console.organization.sso.kept_out')}
      </p>
      {name && (
        <p>
          <button type="button" class="primary" onClick={() => startProviderSignIn(location.pathname)}>
            {t('console.sign_in.with_provider', { name })}
          </button>
        </p>
      )}
      <h2>{t('console.organization.sso.admins_title')}</h2>
      <p>{t('console.organization.sso.admins_text')}</p>
      <ConfirmButton
        label={t('console.organization.sso.stop')}
        question={t('console.organization.sso.stop_question')}
        confirm={t('console.organization.sso.stop_confirm')}
        onConfirm={turnOff}
      />
      <Problem action={turning} />
      <p>
        <Link href="/">{t('console.back_home')}</Link>
      </p>
    </main>
  );
}
