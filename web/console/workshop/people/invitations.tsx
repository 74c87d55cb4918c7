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
import { rich, t } from '../../i18n';

const hidden = (words: string) => <span class="visually-hidden">{words}</span>;

type Role = 'participant' | 'facilitator';
type Invitation = { id: string; email: string; state: 'pending' | 'accepted'; role: Role };

const ROLES: readonly Role[] = ['participant', 'facilitator'];

/** The role an invitation gives, as the form offers it and the list names it. */
const roleName = (role: Role) => t('console.people.invitations.role', { role });

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
      told.value = t('console.people.invitations.sent_again', { email: invitation.email });
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
      <h3>{t('console.people.invitations.sent_title')}</h3>
      {!list ? (
        <p class="empty">{invitations.problem.value || t('console.loading')}</p>
      ) : list.length === 0 ? (
        <p class="empty">{t('console.people.invitations.none')}</p>
      ) : (
        <ul class="invitation-list">
          {list.map((invitation) => (
            <li key={invitation.id} class="invitation-row" data-email={invitation.email}>
              <span class="email">{invitation.email}</span>
              <span class="role">{roleName(invitation.role)}</span>
              <span class={`state ${invitation.state}`}>
                {invitation.state === 'accepted'
                  ? t('console.people.invitations.accepted')
                  : t('console.people.invitations.waiting')}
              </span>
              {invitation.state === 'pending' && (
                <span class="row-actions">
                  <button type="button" onClick={() => void resend(invitation)}>
                    {rich('console.people.invitations.send_again', { email: invitation.email, hidden })}
                  </button>
                  <ConfirmButton
                    label={t('console.common.delete')}
                    class="danger"
                    question={t('console.people.invitations.delete_question', { email: invitation.email })}
                    confirm={t('console.people.invitations.delete_confirm')}
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
      sent.value = t('console.people.invitations.sent', {
        role: made[0]?.role ?? 'participant',
        count: made.length,
        to,
      });
      await props.onSent();
    });
  const invalid = (member: string) => action.field.value === member || undefined;
  return (
    <form class="form invite-form" onSubmit={onSubmit(send)} aria-label={t('console.people.invitations.form')}>
      <div class="field">
        <label for={emailsId}>{t('console.people.invitations.emails')}</label>
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
          {t('console.people.invitations.emails_hint', { max: 100 })}
        </p>
      </div>
      <div class="field">
        <label for={messageId}>{t('console.people.invitations.message')}</label>
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
        legend={t('console.people.invitations.invite_as')}
        name={`${emailsId}-role`}
        options={ROLES.map((each) => [each, roleName(each)] as const)}
        value={role.value}
        onChange={(chosen) => (role.value = chosen)}
      />
      <SubmitRow action={action} label={t('console.people.invitations.send')} status={sent.value} />
    </form>
  );
}
