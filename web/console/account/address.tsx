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
import { NO_PASSWORD } from './password';
import { dayOf } from '../dates';

export function Address(props: { account: User; hasPassword: boolean | null; onNoPassword: () => void }) {
  const { account } = props;
  return (
    <>
      <dl class="account-facts">
        <div>
          <dt>Address</dt>
          <dd class="account-email">{account.email}</dd>
        </div>
        <div>
          <dt>State</dt>
          <dd class="account-confirmed">
            {account.confirmed_at ? (
              <>
                Confirmed on <time dateTime={account.confirmed_at}>{dayOf(account.confirmed_at)}</time>
              </>
            ) : (
              'Not confirmed yet: open the link in the mail we sent to it.'
            )}
          </dd>
        </div>
      </dl>
      {!account.confirmed_at && <SendAgain />}
      {props.hasPassword === false ? (
        <p class="hint">Changing the address asks for your password, and this account has none yet. {NO_PASSWORD}</p>
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
          Send the confirmation mail again
        </button>
      )}
      <span role="status" class="done confirmation-sent">
        {sent.value ? 'A new confirmation mail is on its way.' : ''}
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
          email_taken: [`Another account has the address ${to} already; yours stays as it is.`, 'email'],
          invalid_credentials: ['That password is wrong: nothing was changed.', 'password'],
          forbidden: `This account has no password yet, which changing the address asks for. ${NO_PASSWORD}`,
        });
      }
      password.value = '';
      email.value = '';
      sentTo.value = to;
    });
  return (
    <form class="form" onSubmit={onSubmit(submit)} aria-label="Change your address">
      <h3>Change the address</h3>
      <Field
        label="New address"
        type="email"
        name="email"
        autocomplete="email"
        required
        value={email}
        action={action}
      />
      <Field
        label="Your password"
        type="password"
        name="password"
        autocomplete="current-password"
        required
        hint="To be sure it is you asking."
        value={password}
        action={action}
      />
      <SubmitRow
        action={action}
        label="Change the address"
        status={
          sentTo.value &&
          `A link to confirm ${sentTo.value} went to that address. Your address stays ${props.current} until the link is opened; a notice went there too.`
        }
      />
    </form>
  );
}
