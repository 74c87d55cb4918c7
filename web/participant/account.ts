import { ApiError, type User, type WorkshopClient } from 'workshop-sdk';
import { t } from '../shared/i18n';
import { markInvalid, refusalText } from './forms';
import { keepToken } from '../shared/participant-token';
import { deviceTimeZone } from '../shared/time-zone';

/*
 * A guest keeps what they wrote by becoming an account (docs/api.md#guests): `POST /v1/auth/signup` sent
 * with the guest's own token turns the same user into an account, so their cards, votes, ratings,
 * comments and seat stay theirs. The page then keeps the account's token, which lasts as an
 * account's does rather than a guest's week. Sent at once, never queued: an address and a password
 * do not wait in the phone's storage.
 */

const byId = <T extends HTMLElement = HTMLElement>(id: string) => document.getElementById(id) as T;

/** What a refused signup says to the person. */
const refusedSignup = (err: unknown) =>
  refusalText(err, { email_taken: t('participant.account.email_taken') }, t('participant.account.offline'));

/** Offers a guest the account form; does nothing for someone who already has an account. */
export function offerAccount(
  api: WorkshopClient,
  workshopId: string,
  me: User,
  announce: (text: string) => void,
): void {
  if (!me.guest) return;
  const section = byId<HTMLDetailsElement>('account');
  const name = byId<HTMLInputElement>('account-name');
  const email = byId<HTMLInputElement>('account-email');
  const password = byId<HTMLInputElement>('account-password');
  const status = byId('account-status');
  const button = byId<HTMLButtonElement>('account-button');
  name.value = me.name;
  section.hidden = false;

  const invalid = (input: HTMLInputElement, message: string) => markInvalid(status, input, message);
  byId<HTMLFormElement>('account-form').addEventListener('submit', (event) => {
    event.preventDefault();
    for (const input of [name, email, password]) input.removeAttribute('aria-invalid');
    const body = { name: name.value.trim(), email: email.value.trim(), password: password.value };
    if (!body.name) return invalid(name, t('participant.account.enter_name'));
    if (!body.email) return invalid(email, t('participant.account.enter_email'));
    // What a password needs is the server's to say (its 400 names the field).
    if (!body.password) return invalid(password, t('participant.account.enter_password'));
    status.textContent = '';
    button.disabled = true;
    button.textContent = t('participant.account.submitting');
    api.post('/v1/auth/signup', { body: { ...body, time_zone: deviceTimeZone() } }).then(
      ({ token, user }) => {
        keepToken(workshopId, token);
        api.setToken(token);
        password.value = '';
        section.hidden = true;
        const done = byId('account-done');
        done.textContent = t('participant.account.done', { email: user.email ?? body.email });
        done.hidden = false;
        announce(t('participant.account.created'));
      },
      (err: unknown) => {
        button.disabled = false;
        button.textContent = t('participant.account.submit');
        status.textContent = refusedSignup(err);
        if (err instanceof ApiError && err.code === 'email_taken') email.setAttribute('aria-invalid', 'true');
        const field = err instanceof ApiError ? err.details[0]?.path : undefined;
        if (field === 'password' || field === 'email' || field === 'name')
          byId(`account-${field}`).setAttribute('aria-invalid', 'true');
      },
    );
  });
}
