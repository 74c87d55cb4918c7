/*
 * The Account page's address: the current one and whether it is confirmed; a change asked with the
 * password (`PUT /v1/user/me/email` → 202) mails a link to the new address, which changes nothing
 * until it is opened (docs/api.md#an-accounts-life).
 */
import { useSignal } from '@preact/signals';
import { ApiError, type User } from 'workshop-sdk';
import { api } from '../api';
import { Field, Problem, SubmitRow, onSubmit, useAction } from '../forms';
import { inWords } from './calls';
import { dayOf } from '../dates';
import { rich, t } from '../i18n';

export function Address(props: { account: User; hasPassword: boolean | null; onNoPassword: () => void }) {
  const { account } = props;
  return (
    <>
      <dl class="account-facts">
        <div>
          <dt>{t('console.account.address.title')}</dt>
          <dd class="account-email">{account.email}</dd>
        </div>
        <div>
          <dt>{t('console.account.address.state')}</dt>
          <dd class="account-confirmed">
            {account.confirmed_at
              ? rich('console.account.address.confirmed_on', {
                  day: dayOf(account.confirmed_at),
                  time: (day) => <time dateTime={account.confirmed_at!}>{day}</time>,
                })
              : t('console.account.address.not_confirmed')}
          </dd>
        </div>
      </dl>
      {!account.confirmed_at && <SendAgain />}
      {props.hasPassword === false ? (
        <p class="hint">{t('console.account.address.no_password')}</p>
      ) : (
        <ChangeForm current={account.email ?? ''} onNoPassword={props.onNoPassword} />
      )}
    </>
  );
}

function SendAgain() {
  const action = useAction();
  const sent = useSignal(false);
  return (
    <div class="save-row">
      {!sent.value && (
        <button
          type="button"
          disabled={action.busy.value}
          onClick={() =>
            void action.run(async () => {
              await api.post('/v1/user/me/confirmation');
              sent.value = true;
            })
          }
        >
          {t('console.account.address.send_again')}
        </button>
      )}
      <span role="status" class="done confirmation-sent">
        {sent.value ? t('console.account.address.sent_again') : ''}
      </span>
      <Problem action={action} />
    </div>
  );
}

function ChangeForm(props: { current: string; onNoPassword: () => void }) {
  const email = useSignal('');
  const password = useSignal('');
  const sentTo = useSignal('');
  const action = useAction();
  const submit = () =>
    action.run(async () => {
      sentTo.value = '';
      const to = email.value.trim();
      try {
        await api.put('/v1/user/me/email', { body: { email: to, password: password.value } });
      } catch (err) {
        if (err instanceof ApiError && err.code === 'forbidden') props.onNoPassword();
        throw inWords(err, {
          email_taken: [t('console.account.address.taken', { email: to }), 'email'],
          invalid_credentials: [t('console.account.wrong_password_unchanged'), 'password'],
          forbidden: t('console.account.address.forbidden'),
        });
      }
      password.value = '';
      email.value = '';
      sentTo.value = to;
    });
  return (
    <form class="form" onSubmit={onSubmit(submit)} aria-label={t('console.account.address.form')}>
      <h3>{t('console.account.address.change')}</h3>
      <Field
        label={t('console.account.address.new')}
        type="email"
        name="email"
        autocomplete="email"
        required
        value={email}
        action={action}
      />
      <Field
        label={t('console.account.your_password')}
        type="password"
        name="password"
        autocomplete="current-password"
        required
        hint={t('console.account.address.password_hint')}
        value={password}
        action={action}
      />
      <SubmitRow
        action={action}
        label={t('console.account.address.change')}
        status={sentTo.value && t('console.account.address.sent', { email: sentTo.value, current: props.current })}
      />
    </form>
  );
}
