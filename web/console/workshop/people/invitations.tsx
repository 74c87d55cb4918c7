/*
 * Invitations by mail (docs/api.md#invitations): one or more addresses, separated by commas, a
 * message, and whether they join as participants or co-facilitators; each address gets a one-time
 * link. The list shows each invitation's role and state, and a pending one can be sent again (a new
 * link; the old one stops working) or deleted.
 */
import { useSignal } from '@preact/signals';
import { useId } from 'preact/hooks';
import { api } from '../../api';
import { keptKey, useKeptForm } from '../../kept';
import { ConfirmButton, Problem, Radios, SubmitRow, onSubmit, useAction } from '../../forms';
import { inWorkshop, useLiveRead } from '../live-read';
import type { WorkshopScope } from '../context';

type Role = 'participant' | 'facilitator';
type Invitation = { id: string; email: string; state: 'pending' | 'accepted'; role: Role };

/** The roles an invitation gives, as the form offers them and the list names them. */
const ROLES: ReadonlyArray<readonly [Role, string]> = [
  ['participant', 'Participant'],
  ['facilitator', 'Co-facilitator'],
];
const roleName = (role: Role) => ROLES.find(([value]) => value === role)![1];

export function Invitations({ scope }: { scope: WorkshopScope }) {
  const invitations = useLiveRead(scope, /Invitation|Member/, () =>
    api.get('/v1/workshops/{workshop_id}/invitations', inWorkshop(scope)),
  );
  const action = useAction();
  const told = useSignal('');
  const at = (invitation: Invitation) => ({ params: { path: { workshop_id: scope.id, id: invitation.id } } });
  const resend = (invitation: Invitation) =>
    action.run(async () => {
      told.value = '';
      await api.post('/v1/workshops/{workshop_id}/invitations/{id}/resend', at(invitation));
      told.value = `Sent again to ${invitation.email}.`;
      await invitations.reload();
    });
  const remove = (invitation: Invitation) =>
    action.run(async () => {
      told.value = '';
      await api.delete('/v1/workshops/{workshop_id}/invitations/{id}', at(invitation));
      await invitations.reload();
    });
  const list = invitations.value.value;

  return (
    <>
      <InviteForm scope={scope} onSent={() => invitations.reload()} />
      <h3>Sent</h3>
      {!list ? (
        <p class="empty">{invitations.problem.value || 'Loading…'}</p>
      ) : list.length === 0 ? (
        <p class="empty">No invitations yet.</p>
      ) : (
        <ul class="invitation-list">
          {list.map((invitation) => (
            <li key={invitation.id} class="invitation-row" data-email={invitation.email}>
              <span class="email">{invitation.email}</span>
              <span class="role">{roleName(invitation.role)}</span>
              <span class={`state ${invitation.state}`}>
                {invitation.state === 'accepted' ? 'Accepted' : 'Waiting for an answer'}
              </span>
              {invitation.state === 'pending' && (
                <span class="row-actions">
                  <button type="button" onClick={() => void resend(invitation)}>
                    Send again<span class="visually-hidden"> to {invitation.email}</span>
                  </button>
                  <ConfirmButton
                    label="Delete"
                    class="danger"
                    question={`Delete the invitation to ${invitation.email}? Its link stops working.`}
                    confirm="Delete invitation"
                    onConfirm={() => remove(invitation)}
                  />
                </span>
              )}
            </li>
          ))}
        </ul>
      )}
      <p role="status" class="done invitations-status">
        {told.value}
      </p>
      <Problem action={action} />
    </>
  );
}

/** What is typed is kept for this tab until it is sent (kept.ts); the message stays for the next addresses. */
function InviteForm(props: { scope: WorkshopScope; onSent: () => unknown }) {
  const form = useKeptForm(keptKey('invitations', props.scope.id), {
    emails: '',
    message: '',
    role: 'participant' as Role,
  });
  const { emails, message, role } = form.fields;
  const sent = useSignal('');
  const action = useAction();
  const emailsId = useId();
  const messageId = useId();
  const send = () =>
    action.run(async () => {
      sent.value = '';
      const made = await api.post('/v1/workshops/{workshop_id}/invitations', {
        ...inWorkshop(props.scope),
        body: { emails: emails.value, content: message.value, role: role.value },
      });
      emails.value = '';
      form.forget();
      const to = made.map((invitation) => invitation.email).join(', ');
      // One whole sentence for each case, by the role the service gave (the choice may have moved since).
      const asFacilitators = made[0]?.role === 'facilitator';
      const many = made.length > 1;
      sent.value = asFacilitators
        ? many
          ? `Invitations sent to ${to}, as co-facilitators.`
          : `Invitation sent to ${to}, as a co-facilitator.`
        : many
          ? `Invitations sent to ${to}.`
          : `Invitation sent to ${to}.`;
      await props.onSent();
    });
  const invalid = (member: string) => action.field.value === member || undefined;
  return (
    <form class="form invite-form" onSubmit={onSubmit(send)} aria-label="Invite by e-mail">
      <div class="field">
        <label for={emailsId}>E-mail addresses</label>
        <textarea
          id={emailsId}
          rows={2}
          required
          value={emails.value}
          aria-invalid={invalid('emails')}
          aria-describedby={`${emailsId}-hint`}
          onInput={(e) => (emails.value = e.currentTarget.value)}
        />
        <p id={`${emailsId}-hint`} class="hint">
          Separate addresses with commas; up to 100 at a time.
        </p>
      </div>
      <div class="field">
        <label for={messageId}>Message</label>
        <textarea
          id={messageId}
          rows={3}
          required
          maxLength={5000}
          value={message.value}
          aria-invalid={invalid('content')}
          onInput={(e) => (message.value = e.currentTarget.value)}
        />
      </div>
      <Radios
        legend="Invite as"
        name={`${emailsId}-role`}
        options={ROLES}
        value={role.value}
        onChange={(chosen) => (role.value = chosen)}
      />
      <SubmitRow action={action} label="Send invitations" status={sent.value} />
    </form>
  );
}
