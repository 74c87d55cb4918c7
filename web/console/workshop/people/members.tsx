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

  if (!list) return <p class="empty">{members.problem.value || 'Loading…'}</p>;
  const facilitators = list.filter((member) => member.role === 'facilitator').length;
  return (
    <>
      <p class="meta">
        {countText(list.length, 'member')}: {countText(facilitators, 'facilitator')},{' '}
        {countText(list.length - facilitators, 'participant')}.
      </p>
      <ul class="member-list">
        {list.map((member) => (
          <li key={member.id} class="member-row" data-member={member.user_id}>
            <span class="member-name">
              <span class="name">{member.name}</span>
              {member.user_id === me.value?.id && <span class="meta"> (you)</span>}
              {member.guest && <span class="badge">Guest</span>}
              {here.has(member.user_id) && <span class="badge here">Here now</span>}
            </span>
            <span class="member-role">{member.role === 'facilitator' ? 'Facilitator' : 'Participant'}</span>
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
        label="Make yourself a participant"
        question="You will no longer run this workshop. Go on?"
        confirm="Make me a participant"
        onConfirm={() => props.onRole('participant')}
      />
    );
  if (member.role === 'facilitator')
    return (
      <button type="button" onClick={() => props.onRole('participant')}>
        Make participant<span class="visually-hidden">: {member.name}</span>
      </button>
    );
  if (member.guest) return <span class="hint">A guest can facilitate once they sign up.</span>;
  return (
    <button type="button" onClick={() => props.onRole('facilitator')}>
      Make facilitator<span class="visually-hidden">: {member.name}</span>
    </button>
  );
}

export function countText(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
