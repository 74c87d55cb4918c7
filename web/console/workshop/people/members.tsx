/*
 * The workshop's members and their roles (docs/api.md#who-may-do-what): each can be made a
 * facilitator or a participant. Guests are marked and stay participants until they sign up (the
 * service refuses otherwise); a workshop keeps at least one facilitator, which the service also
 * enforces and says. Who is connected now comes from the live presence.
 */
import { api } from '../../api';
import { ConfirmButton, Problem, useAction } from '../../forms';
import { me } from '../../session';
import { inWorkshop, useLiveRead } from '../live-read';
import type { WorkshopScope } from '../context';
import { rich, t } from '../../i18n';

const hidden = (words: string) => <span class="visually-hidden">{words}</span>;

type Role = 'facilitator' | 'participant';
type Member = { id: string; user_id: string; role: Role; name: string; guest: boolean };

export function Members({ scope }: { scope: WorkshopScope }) {
  const members = useLiveRead(scope, /Member|Invitation/, () =>
    api.get('/v1/workshops/{workshop_id}/user_roles', inWorkshop(scope)),
  );
  const action = useAction();
  const here = new Set(scope.state.value.presence.users.map((user) => user.id));
  const list = members.value.value;
  const setRole = (member: Member, role: Role) =>
    action.run(async () => {
      await api.put('/v1/workshops/{workshop_id}/user_roles/{id}', {
        params: { path: { workshop_id: scope.id, id: member.id } },
        body: { role },
      });
      await members.reload();
    });

  if (!list) return <p class="empty">{members.problem.value || t('console.loading')}</p>;
  const facilitators = list.filter((member) => member.role === 'facilitator').length;
  return (
    <>
      <p class="meta">
        {t('console.people.members.counts', {
          members: list.length,
          facilitators,
          participants: list.length - facilitators,
        })}
      </p>
      <ul class="member-list">
        {list.map((member) => (
          <li key={member.id} class="member-row" data-member={member.user_id}>
            <span class="member-name">
              <span class="name">{member.name}</span>
              {member.user_id === me.value?.id && <span class="meta"> {t('console.people.members.you')}</span>}
              {member.guest && <span class="badge">{t('console.people.members.guest')}</span>}
              {here.has(member.user_id) && <span class="badge here">{t('console.run.room.here_now')}</span>}
            </span>
            <span class="member-role">{t('console.people.members.role', { role: member.role })}</span>
            <RoleAction member={member} onRole={(role) => setRole(member, role)} />
          </li>
        ))}
      </ul>
      <Problem action={action} />
    </>
  );
}

function RoleAction(props: { member: Member; onRole: (role: Role) => unknown }) {
  const { member } = props;
  if (member.role === 'facilitator' && member.user_id === me.value?.id)
    return (
      <ConfirmButton
        label={t('console.people.members.step_down')}
        question={t('console.people.members.step_down_question')}
        confirm={t('console.people.members.step_down_confirm')}
        onConfirm={() => props.onRole('participant')}
      />
    );
  if (member.role === 'facilitator')
    return (
      <button type="button" onClick={() => props.onRole('participant')}>
        {rich('console.people.members.make_participant', { name: member.name, hidden })}
      </button>
    );
  if (member.guest) return <span class="hint">{t('console.people.members.guest_hint')}</span>;
  return (
    <button type="button" onClick={() => props.onRole('facilitator')}>
      {rich('console.people.members.make_facilitator', { name: member.name, hidden })}
    </button>
  );
}
