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
      saved.value = next ? 'Saved: single sign-on is required.' : 'Saved: single sign-on is not required.';
      // A session opened with a password is kept out from now on: the page then says so.
      await props.onSaved();
    });

  const name = provider.value;
  const unsaved = required.value !== organization.sso_required;
  if (name === undefined) return <p class="empty">Loading…</p>;
  return (
    <form class="form sso" aria-label="Single sign-on" onSubmit={onSubmit(save)}>
      <p class="sso-explained">
        {name
          ? `When it is required, the organization’s members sign in with ${name}: members who signed in with a password are kept out of the organization and its workshops, as are personal API tokens made from such a sign-in. The organization’s own API tokens keep working.`
          : 'No OpenID provider is configured on this server, so single sign-on cannot be required: whoever runs the service sets one up first.'}
      </p>
      <label class="choice">
        <input
          type="checkbox"
          name="sso_required"
          checked={required.value}
          disabled={!name && !organization.sso_required}
          onChange={(event) => (required.value = event.currentTarget.checked)}
        />
        <span>{name ? `Require single sign-on with ${name}` : 'Require single sign-on'}</span>
      </label>
      {name && (
        <p class="hint">
          If you signed in with a password yourself, this page then closes to you too, except for turning the
          requirement off: sign in with {name} first to keep managing the organization.
        </p>
      )}
      <SubmitRow action={saving} label="Save" status={unsaved ? '' : saved.value}>
        {unsaved && <span class="hint">Not saved yet.</span>}
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
          throw new InputProblem('Only the organization’s admins can stop requiring single sign-on.');
        throw err;
      }
      await props.onReopen();
    });
  return (
    <main class="narrow organization-kept-out">
      <h1>Organization</h1>
      <p class="notice">
        This organization requires its members to sign in with {name || 'its single sign-on provider'}. You signed in
        with a password, so this session is kept out of the organization and its workshops.
      </p>
      {name && (
        <p>
          <button type="button" class="primary" onClick={() => startProviderSignIn(location.pathname)}>
            Sign in with {name}
          </button>
        </p>
      )}
      <h2>If you are one of its admins</h2>
      <p>
        An admin can stop requiring single sign-on however they signed in, for when the provider is down or
        misconfigured. Nothing else of the organization is open to this session.
      </p>
      <ConfirmButton
        label="Stop requiring single sign-on"
        question="Stop requiring single sign-on? Members who sign in with a password reach the organization again."
        confirm="Stop requiring it"
        onConfirm={turnOff}
      />
      <Problem action={turning} />
      <p>
        <Link href="/">Back to your workshops</Link>
      </p>
    </main>
  );
}
