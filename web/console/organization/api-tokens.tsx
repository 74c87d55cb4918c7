/*
 * The API tokens section (docs/integrations.md#api-tokens): each token's name, who made it, its
 * scopes, when it was made, expires and was last used; revoking one, asked first in words; and
 * making one (name, scopes, an expiry if wanted), whose secret is shown once with a copy button. A
 * token outlives its maker's seat, so the maker is named here even after they left.
 */
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { api } from '../api';
import { CreateTokenForm, TokenFacts } from '../api-tokens';
import { ConfirmButton, Problem, useAction } from '../forms';
import { SecretOnce } from '../secret-once';
import type { ApiToken } from './types';

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
                <TokenFacts token={token} maker={token.created_by.name} />
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
      <CreateTokenForm
        title="Create an API token"
        submitLabel="Create token"
        scopesHint="What the token may do; it acts as an admin of the organization within them."
        formClass="organization-token-form"
        create={(body) => api.post('/v1/organizations/{id}/api_tokens', { ...path, body })}
        onMade={async (token) => {
          made.value = token;
          told.value = '';
          await read();
        }}
      />
    </>
  );
}
