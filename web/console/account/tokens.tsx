/*
 * The Account page's personal API tokens (docs/integrations.md#api-tokens): listed without their
 * secrets, made with a name, scopes and an optional expiry, the secret shown once with a copy
 * button, and revoked after asking in words. A token acts as the person, within its scopes.
 */
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { api } from '../api';
import { CreateTokenForm, prefixShown, TokenFacts, type ApiToken } from '../api-tokens';
import { ConfirmButton, Problem, useAction } from '../forms';
import { SecretOnce } from '../secret-once';
import { t } from '../i18n';

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
      told.value = t('console.tokens.revoked', { name: token.name });
      await read();
    });

  const list = tokens.value;
  return (
    <>
      <p class="hint">{t('console.account.tokens.intro')}</p>
      <Problem action={load} />
      {!list ? (
        <p class="empty">{load.busy.value ? t('console.loading') : ''}</p>
      ) : list.length === 0 ? (
        <p class="empty">{t('console.account.tokens.none')}</p>
      ) : (
        <ul class="account-list token-list-personal">
          {list.map((token) => (
            <li key={token.id} class="account-row personal-token" data-token={token.id}>
              <div class="account-row-text">
                <span class="account-row-name">{token.name}</span> <code class="meta">{prefixShown(token.prefix)}</code>
                <TokenFacts token={token} />
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
      <p role="status" class="done">
        {told.value}
      </p>
      <Problem action={revoking} />
      {made.value && (
        <SecretOnce
          title={t('console.account.tokens.made', { name: made.value.name })}
          secret={made.value.token}
          hint={t('console.account.tokens.secret_hint')}
          onDone={() => (made.value = null)}
        />
      )}
      {props.confirmed ? (
        <CreateTokenForm
          title={t('console.account.tokens.form')}
          submitLabel={t('console.account.tokens.submit')}
          scopesHint={t('console.account.tokens.scopes_hint')}
          formClass="account-token-form"
          create={(body) => api.post('/v1/user/me/api_tokens', { body })}
          onMade={async (token) => {
            told.value = '';
            made.value = token;
            await read();
          }}
        />
      ) : (
        <p class="hint">{t('console.account.tokens.confirm_first')}</p>
      )}
    </>
  );
}
