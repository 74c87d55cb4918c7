/*
 * `/invitations/<token>`, where an invitation mail's link lands. Signed in (app.tsx asks for that
 * first), the invitation is accepted and the console goes on to the workshop: its facilitators get
 * the console, participants the participant page (workshop/shell.tsx decides).
 */
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { api, problemText } from '../api';
import { Link, navigate } from '../router';

export function Invitation(props: { token: string }) {
  const problem = useSignal('');
  useEffect(() => {
    api.post('/v1/invitations/{token}/accept', { params: { path: { token: props.token } } }).then(
      ({ workshop_id }) => navigate(`/workshops/${encodeURIComponent(workshop_id)}`, { replace: true }),
      (err: unknown) => (problem.value = problemText(err)),
    );
  }, [props.token]);
  return (
    <main class="narrow">
      <h1>Invitation</h1>
      {problem.value ? (
        <>
          <p role="alert" class="problem">
            {problem.value}
          </p>
          <p>
            <Link href="/">Go to your workshops</Link>
          </p>
        </>
      ) : (
        <p role="status">Accepting the invitation…</p>
      )}
    </main>
  );
}
