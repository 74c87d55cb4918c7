/*
 * `/confirm?token=…`, where the signup mail's link lands: the address is confirmed at once, signed
 * in or not (the link is the proof), and the page says so.
 */
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { api, problemText } from '../api';
import { Link } from '../router';
import { loadMe } from '../session';

export function Confirm(props: { token: string }) {
  /** `pending` while the request runs, `done` once confirmed, or the refusal's words. */
  const outcome = useSignal('pending');
  useEffect(() => {
    // The token does its work once sent: kept out of the history and off shared screens.
    history.replaceState(null, '', location.pathname);
    if (!props.token) {
      outcome.value = 'This link has no confirmation token: open the link from the mail again.';
      return;
    }
    api.post('/v1/auth/confirm', { body: { token: props.token } }).then(
      () => {
        outcome.value = 'done';
        // A signed-in account now reads as confirmed (a read begun before the confirmation is overtaken).
        loadMe().catch(() => undefined);
      },
      (err: unknown) => (outcome.value = problemText(err)),
    );
  }, [props.token]);
  return (
    <main class="narrow">
      <h1>Confirm your address</h1>
      {outcome.value === 'pending' && <p role="status">Confirming…</p>}
      {outcome.value === 'done' && (
        <p role="status" class="done">
          Your address is confirmed.
        </p>
      )}
      {outcome.value !== 'pending' && outcome.value !== 'done' && (
        <p role="alert" class="problem">
          {outcome.value}
        </p>
      )}
      <p>
        <Link href="/">Go to your workshops</Link>
      </p>
    </main>
  );
}
