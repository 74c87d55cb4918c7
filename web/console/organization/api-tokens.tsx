/*
 * The API tokens section (docs/integrations.md#api-tokens): each token's name, who made it, its
 * scopes, when it was made, expires and was last used; revoking one, asked first in words; and
 * making one (name, scopes, an expiry if wanted), whose secret is shown once with a copy button. A
 * token outlives its maker's seat, so the maker is named here even after they left.
 */
import { useSignal } from '@preact/signals';
import { useEffect, useId } from 'preact/hooks';
import { api, InputProblem } from '../api';
import { ConfirmButton, Field, onSubmit, Problem, SubmitRow, useAction } from '../forms';
import { SecretOnce } from '../secret-once';
import { SCOPES, type ApiToken } from './types';

type Scope = ApiToken['scopes'][number];

export function ApiTokens({ organizationId }: { organizationId: string }) {
  const tokens = useSignal<ApiToken[] | null>(null);
  const load = useAction();
  const revoking = useAction();
  const told = useSignal('');
  const made = useSignal<{ name: string; token: string } | null>(null);
  const path = { params: { path: { id: organizationId } } };
  const read = () =>
    load.run(async () => {
      tokens.value = await api.get('/v1/organizations/{id}/api_tokens', path);
    });
  useEffect(() => {
    void read();
  }, [organizationId]);
  const revoke = (token: ApiToken) =>
    revoking.run(async () => {
      told.value = '';
      await api.delete('/v1/organizations/{id}/api_tokens/{token_id}', {
        params: { path: { id: organizationId, token_id: token.id } },
      });
      told.value = `The token “${token.name}” is revoked: it no longer works.`;
      await read();
    });

  const list = tokens.value;
  return (
    <>
      <p class="hint">
        Tokens let other systems use the service for this organization. One keeps working when the person who made it
        leaves, until an admin revokes it here.
      </p>
      <Problem action={load} />
      {!list ? (
        <p class="empty">{load.busy.value ? 'Loading…' : ''}</p>
      ) : list.length === 0 ? (
        <p class="empty">This organization has no API tokens.</p>
      ) : (
        <ul class="token-list">
          {list.map((token) => (
            <li key={token.id} class="token-row" data-token={token.id}>
              <div class="token-text">
                <span class="token-name">{token.name}</span> <code class="meta">{token.prefix}…</code>
                <dl class="token-facts">
                  <div>
                    <dt>Made by</dt>
                    <dd class="token-maker">{token.created_by.name}</dd>
                  </div>
                  <div>
                    <dt>Scopes</dt>
                    <dd class="token-scopes">{token.scopes.join(', ')}</dd>
                  </div>
                  <div>
                    <dt>Created</dt>
                    <dd>
                      <time dateTime={token.created_at}>{new Date(token.created_at).toLocaleDateString()}</time>
                    </dd>
                  </div>
                  {token.expires_at && (
                    <div>
                      <dt>Expires</dt>
                      <dd class="token-expires">
                        <time dateTime={token.expires_at}>{new Date(token.expires_at).toLocaleDateString()}</time>
                      </dd>
                    </div>
                  )}
                  <div>
                    <dt>Last used</dt>
                    <dd class="token-used">
                      {token.last_used_at ? (
                        <time dateTime={token.last_used_at}>{new Date(token.last_used_at).toLocaleString()}</time>
                      ) : (
                        'Never'
                      )}
                    </dd>
                  </div>
                </dl>
              </div>
              <ConfirmButton
                label="Revoke"
                labelSuffix={` ${token.name}`}
                class="danger"
                question={`Revoke “${token.name}”? Whatever uses it stops working at once.`}
                confirm="Revoke token"
                onConfirm={() => revoke(token)}
              />
            </li>
          ))}
        </ul>
      )}
      <p role="status" class="done token-said">
        {told.value}
      </p>
      <Problem action={revoking} />
      {made.value && (
        <SecretOnce
          title={`The token “${made.value.name}”. It is shown this once: copy it now.`}
          secret={made.value.token}
          hint="Send it as “Authorization: Bearer …”. The service keeps only a hash of it: a lost token cannot be shown again; revoke it and make another."
          onDone={() => (made.value = null)}
        />
      )}
      <CreateToken
        organizationId={organizationId}
        onCreated={async (name, token) => {
          made.value = { name, token };
          told.value = '';
          await read();
        }}
      />
    </>
  );
}

/** Makes a token: a name, one scope at least, and an expiry date if wanted. */
function CreateToken(props: { organizationId: string; onCreated: (name: string, token: string) => Promise<void> }) {
  const name = useSignal('');
  const scopes = useSignal<Scope[]>([]);
  const expires = useSignal('');
  const creating = useAction();
  const scopesHint = useId();
  const submit = () =>
    creating.run(async () => {
      if (scopes.value.length === 0) throw new InputProblem('Choose one scope at least.', 'scopes');
      const made = await api.post('/v1/organizations/{id}/api_tokens', {
        params: { path: { id: props.organizationId } },
        body: {
          name: name.value.trim(),
          scopes: scopes.value,
          // The end of the chosen day, where the person is.
          ...(expires.value ? { expires_at: new Date(`${expires.value}T23:59:59`).toISOString() } : {}),
        },
      });
      name.value = '';
      scopes.value = [];
      expires.value = '';
      await props.onCreated(made.name, made.token);
    });
  const toggle = (scope: Scope, on: boolean) =>
    (scopes.value = on ? [...scopes.value, scope] : scopes.value.filter((kept) => kept !== scope));
  return (
    <form class="form create-token" aria-label="Create an API token" onSubmit={onSubmit(submit)}>
      <h3>Create an API token</h3>
      <Field label="Name" name="name" value={name} action={creating} required maxLength={100} autocomplete="off" />
      <fieldset
        class="checks"
        aria-describedby={scopesHint}
        aria-invalid={creating.field.value === 'scopes' || undefined}
      >
        <legend>Scopes</legend>
        <p id={scopesHint} class="hint">
          What the token may do; it acts as an admin of the organization within them.
        </p>
        <div class="check-grid">
          {SCOPES.map(([scope, words]) => (
            <label key={scope} class="choice">
              <input
                type="checkbox"
                checked={scopes.value.includes(scope)}
                onChange={(event) => toggle(scope, event.currentTarget.checked)}
              />
              <span>
                <code>{scope}</code> <span class="meta">{words}</span>
              </span>
            </label>
          ))}
        </div>
      </fieldset>
      <Field
        label="Expires (optional)"
        name="expires_at"
        type="date"
        value={expires}
        action={creating}
        hint="Without a date it works until revoked."
      />
      <SubmitRow action={creating} label="Create token" status="" />
    </form>
  );
}
