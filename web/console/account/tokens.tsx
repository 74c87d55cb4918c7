/*
 * The Account page's personal API tokens (docs/integrations.md#api-tokens): listed without their
 * secrets, made with a name, scopes and an optional expiry, the secret shown once with a copy
 * button, and revoked after asking in words. A token acts as the person, within its scopes.
 */
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { api } from '../api';
import { CreateTokenForm, TokenFacts, type ApiToken } from '../api-tokens';
import { ConfirmButton, Problem, useAction } from '../forms';
import { SecretOnce } from '../secret-once';

export function Tokens(props: { confirmed: boolean }) {
  const tokens = useSignal<ApiToken[] | null>(null);
  const made = useSignal<{ name: string; token: string } | null>(null);
  const load = useAction();
  const revoking = useAction();
  const told = useSignal('');
  const read = () =>
    load.run(async () => {
      tokens.value = await api.get('/v1/user/me/api_tokens');
    });
  useEffect(() => {
    void read();
  }, []);
  const revoke = (token: ApiToken) =>
    revoking.run(async () => {
      told.value = '';
      await api.delete('/v1/user/me/api_tokens/{token_id}', { params: { path: { token_id: token.id } } });
      if (made.value?.name === token.name) made.value = null;
      told.value = `The token “${token.name}” is revoked: it no longer works.`;
      await read();
    });

  const list = tokens.value;
  return (
    <>
      <p class="hint">
        A token lets a program use the service as you, within the scopes you give it. Whoever has it can do that much:
        revoke it here when it is no longer needed.
      </p>
      <Problem action={load} />
      {!list ? (
        <p class="empty">{load.busy.value ? 'Loading…' : ''}</p>
      ) : list.length === 0 ? (
        <p class="empty">You have no personal API tokens.</p>
      ) : (
        <ul class="account-list token-list-personal">
          {list.map((token) => (
            <li key={token.id} class="account-row personal-token" data-token={token.id}>
              <div class="account-row-text">
                <span class="account-row-name">{token.name}</span> <code class="meta">{token.prefix}…</code>
                <TokenFacts token={token} />
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
      <p role="status" class="done">
        {told.value}
      </p>
      <Problem action={revoking} />
      {made.value && (
        <SecretOnce
          title={`The token “${made.value.name}” is made. It is shown this once: copy it now.`}
          secret={made.value.token}
          hint="Send it as “Authorization: Bearer …”. The service keeps only a fingerprint of it: a lost token cannot be shown again; revoke it and make another."
          onDone={() => (made.value = null)}
        />
      )}
      {props.confirmed ? (
        <CreateTokenForm
          title="Make a token"
          submitLabel="Make the token"
          scopesHint="What the token may do; it acts as you within them."
          formClass="account-token-form"
          create={(body) => api.post('/v1/user/me/api_tokens', { body })}
          onMade={async (token) => {
            told.value = '';
            made.value = token;
            await read();
          }}
        />
      ) : (
        <p class="hint">Confirm your address first: only a confirmed account makes API tokens.</p>
      )}
    </>
  );
}
