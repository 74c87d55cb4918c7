/*
 * `/invitations/<token>`, where an invitation mail's link lands. It names the workshop, who invited
 * and, to a co-facilitator, the role (`GET /v1/invitations/<token>`, read before signing in); signed
 * out, it asks to sign in with the invited address filled in. Signed in, the invitation is accepted
 * and the console goes on to the workshop: its facilitators get the console, participants the
 * participant page (workshop/shell.tsx decides).
 */
import { useSignal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { api, problemText } from '../api';
import { t } from '../i18n';
import { Link, navigate } from '../router';
import { SignedOut } from './signed-out';

/** What `GET /v1/invitations/<token>` says of the link. */
interface Preview {
  workshop_title: string;
  invited_by: string;
  email: string;
  role: 'participant' | 'facilitator';
}

/** The invitation's preview once read; null while it is read or when the link is no more (accepting says why). */
function usePreview(token: string) {
  const preview = useSignal<Preview | null>(null);
  useEffect(() => {
    api.get('/v1/invitations/{token}', { params: { path: { token } } }).then(
      (found) => (preview.value = found),
      () => undefined,
    );
  }, [token]);
  return preview.value;
}

/** "Ada invites you to the workshop “Retro”." ("… as a co-facilitator." when so) */
const invitesYou = (preview: Preview) =>
  preview.invited_by
    ? t('console.invitation.invites_you', {
        inviter: preview.invited_by,
        title: preview.workshop_title,
        role: preview.role,
      })
    : t('console.invitation.invites_you_unnamed', { title: preview.workshop_title, role: preview.role });

/** Signed out: the invitation said, then the sign-in with the invited address filled in. */
export function InvitationSignedOut(props: { token: string }) {
  const preview = usePreview(props.token);
  return (
    <SignedOut
      key={preview?.email ?? ''}
      mode="sign-in"
      email={preview?.email ?? ''}
      // Two sentences: the invitation, then what to do.
      reason={[...(preview ? [invitesYou(preview)] : []), t('console.signed_out.reason.invitation')].join(' ')}
    />
  );
}

export function Invitation(props: { token: string }) {
  const problem = useSignal('');
  const preview = usePreview(props.token);
  useEffect(() => {
    api.post('/v1/invitations/{token}/accept', { params: { path: { token: props.token } } }).then(
      ({ workshop_id }) => navigate(`/workshops/${encodeURIComponent(workshop_id)}`, { replace: true }),
      (err: unknown) => (problem.value = problemText(err)),
    );
  }, [props.token]);
  return (
    <main class="narrow">
      <h1>
        {preview
          ? t('console.invitation.title_named', { title: preview.workshop_title })
          : t('console.invitation.title')}
      </h1>
      {preview && <p class="invitation-from">{invitesYou(preview)}</p>}
      {problem.value ? (
        <>
          <p role="alert" class="problem">
            {problem.value}
          </p>
          <p>
            <Link href="/">{t('console.go_home')}</Link>
          </p>
        </>
      ) : (
        <p role="status">{t('console.invitation.accepting')}</p>
      )}
    </main>
  );
}
