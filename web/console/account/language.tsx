/*
 * The Account page's language: the console's and the mails' (`PUT /v1/user/me {locale}`,
 * docs/i18n.md#which-language). Saved as soon as it is chosen; the console then speaks it at once,
 * without a reload.
 */
import { useSignal } from '@preact/signals';
import { useId } from 'preact/hooks';
import type { User } from 'workshop-sdk';
import { api } from '../api';
import { Problem, useAction } from '../forms';
import { followLocale, languageNames, t } from '../i18n';
import { loadMe } from '../session';

export function Language({ account }: { account: User }) {
  const id = useId();
  const said = useSignal('');
  const action = useAction();
  const names = languageNames();
  const choose = (locale: string) =>
    action.run(async () => {
      said.value = '';
      await api.put('/v1/user/me', { body: { locale } });
      const moved = await followLocale(locale);
      await loadMe();
      said.value = moved ? t('console.account.language.saved') : t('console.account.language.offline');
    });
  return (
    <div class="field">
      <label for={id}>{t('console.account.language.label')}</label>
      <select
        id={id}
        value={account.locale}
        disabled={action.busy.value}
        aria-describedby={`${id}-hint`}
        onChange={(event) => void choose(event.currentTarget.value)}
      >
        {Object.entries(names).map(([tag, name]) => (
          <option key={tag} value={tag} lang={tag}>
            {name}
          </option>
        ))}
      </select>
      <p id={`${id}-hint`} class="hint">
        {t('console.account.language.hint')}
      </p>
      <Problem action={action} />
      <p role="status" class="done">
        {said.value}
      </p>
    </div>
  );
}
