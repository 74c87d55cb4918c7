/*
 * The API tokens section (docs/integrations.md#api-tokens): each token's name, who made it, its
 * scopes, when it was made, expires and was last used; revoking one, asked first in words; and
 * making one (name, scopes, an expiry if wanted), whose secret is shown once with a copy button. A
 * token outlives its maker's seat, so the maker is named here even after they left.
 */
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { api } from '../api';
import { CreateTokenForm, prefixShown, TokenFacts } from '../api-tokens';
import { ConfirmButton, Problem, useAction } from '../forms';
import { SecretOnce } from '../secret-once';
import type { ApiToken } from './types';
import { t } from '../i18n';

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
      told.value = t('console.tokens.revoked', { name: token.name });
      await read();
    });

  const list = tokens.value;
  return (
    <>
      <p class="hint">{t('console.organization.tokens.intro')}</p>
      <Problem action={load} />
      {!list ? (
        <p class="empty">{load.busy.value ? t('console.loading') : ''}</p>
      ) : list.length === 0 ? (
        <p class="empty">{t('console.organization.tokens.none')}</p>
      ) : (
        <ul class="token-list">
          {list.map((token) => (
            <li key={token.id} class="token-row" data-token={token.id}>
              <div class="token-text">
                <span class="token-name">{token.name}</span> <code class="meta">{prefixShown(token.prefix)}</code>
                <TokenFacts token={token} maker={token.created_by.name} />
              </div>
              <ConfirmButton
                label={t('console.tokens.revoke')}
                labelSuffix={` ${token.name}`}
                class="danger"
                question={t('console.tokens.revoke_question', { name: token.name })}
                confirm={t('console.tokens.revoke_confirm')}
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
          title={t('console.organization.tokens.made', { name: made.value.name })}
          secret={made.value.token}
          hint={t('console.organization.tokens.secret_hint')}
          onDone={() => (made.value = null)}
        />
      )}
      <CreateTokenForm
        title={t('console.organization.tokens.form')}
        submitLabel={t('console.organization.tokens.submit')}
        scopesHint={t('console.organization.tokens.scopes_hint')}
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
