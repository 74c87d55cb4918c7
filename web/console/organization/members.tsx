/*
 * The Members section: the organization's members and its pending seats (an address added before
 * it had a confirmed account, taken when that account confirms it: docs/api.md#organizations),
 * each with their role. Admins add one by address with a role, change a role
 * (`PUT …/members/:member_id {role}`) and remove one, asked first in words. The service keeps one
 * admin at least: that refusal, and one for a caller who is no longer an admin, are said in words.
 */
import { useSignal } from '@preact/signals';
import { ApiError } from 'workshop-sdk';
import { api, InputProblem } from '../api';
import { ConfirmButton, Field, onSubmit, SelectField, SubmitRow, useAction } from '../forms';
import { keptKey, useKeptForm } from '../kept';
import { navigate } from '../router';
import { ROLE_NAMES, type Member, type Organization, type Role } from './types';

/** The service's 403: the caller was an admin when the page opened, and is not anymore. */
class NoLongerAdmin extends InputProblem {}

const ROLE_OPTIONS = [
  { value: 'facilitator', label: 'Facilitator' },
  { value: 'admin', label: 'Admin' },
];

export function Members(props: {
  organization: Organization;
  members: Member[];
  myEmail: string;
  onChange: () => Promise<void>;
  /** Told when the service says the caller is no longer an admin, before the page is read again. */
  onNoLongerAdmin: (words: string) => void;
}) {
  const { organization, members, myEmail } = props;
  const path = (member: Member) => ({ params: { path: { id: organization.id, member_id: member.id } } });
  const acting = useAction();
  const told = useSignal('');
  /** The row the last refusal was about, so it is said there. */
  const refusedRow = useSignal<string | null>(null);
  /** A pending seat is named by its address (its name is only the address's first part). */
  const who = (member: Member) => (member.pending ? member.email : member.name);
  const isMe = (member: Member) => !member.pending && member.email.toLowerCase() === myEmail;

  /** The service's refusals of a role change or a removal, in this page's words. */
  const inWords = (err: unknown, member: Member, doing: string): unknown => {
    if (!(err instanceof ApiError)) return err;
    if (err.status === 409)
      return new InputProblem(
        `${isMe(member) ? 'You are' : `${member.name} is`} the last admin of ${organization.name}, so ${doing}: make someone else an admin first. An organization always keeps one admin.`,
      );
    if (err.status === 403)
      return new NoLongerAdmin(
        `Only the organization’s admins change members, and you are no longer one of them: ${doing}.`,
      );
    if (err.status === 404) return new InputProblem(`${member.name} is no longer a member: ${doing}.`);
    return err;
  };

  const changeRole = (member: Member, role: Role) =>
    act(member, async () => {
      try {
        await api.put('/v1/organizations/{id}/members/{member_id}', { ...path(member), body: { role } });
      } catch (err) {
        throw inWords(err, member, `${isMe(member) ? 'your' : 'their'} role stays ${ROLE_NAMES[member.role]}`);
      }
      told.value = `${member.name} is now ${role === 'admin' ? 'an admin' : 'a facilitator'}.`;
    });
  const remove = (member: Member) =>
    act(member, async () => {
      try {
        await api.delete('/v1/organizations/{id}/members/{member_id}', path(member));
      } catch (err) {
        throw inWords(err, member, isMe(member) ? 'you stay a member' : 'they stay a member');
      }
      if (isMe(member)) return navigate('/');
      told.value = member.pending
        ? `The seat for ${member.email} is withdrawn.`
        : `${member.name} is no longer a member of ${organization.name}.`;
    });
  const act = async (member: Member, work: () => Promise<void>) => {
    told.value = '';
    refusedRow.value = member.id;
    let noLongerAdmin = false;
    const done = await acting.run(() =>
      work().catch((err: unknown) => {
        noLongerAdmin = err instanceof NoLongerAdmin;
        throw err;
      }),
    );
    if (done) refusedRow.value = null;
    // The page is read again, without these controls: the refusal is said there.
    if (noLongerAdmin) props.onNoLongerAdmin(acting.problem.value);
    await props.onChange();
  };

  const refusal = refusedRow.value && acting.problem.value;
  return (
    <>
      <p class="hint">
        Members facilitate the organization’s workshops; admins also manage these settings. An address without a
        confirmed account keeps a pending seat, taken when its account confirms the address.
      </p>
      <ul class="member-list">
        {members.map((member) => (
          <li key={member.id} class="member-row" data-member={member.id}>
            <div class="member-text">
              <span class="member-name">{member.name}</span>
              {isMe(member) && <span class="meta"> (you)</span>} <span class="meta member-email">{member.email}</span>
              <span class="member-facts">
                <span class={`member-role role-${member.role}`}>
                  {member.role === 'admin' ? 'Admin' : 'Facilitator'}
                </span>
                {member.pending && (
                  <span class="member-pending">Pending: no confirmed account with this address yet</span>
                )}
              </span>
            </div>
            <div class="row-actions">
              <button
                type="button"
                disabled={acting.busy.value}
                onClick={() => void changeRole(member, member.role === 'admin' ? 'facilitator' : 'admin')}
              >
                {member.role === 'admin' ? 'Make facilitator' : 'Make admin'}
                <span class="visually-hidden"> {who(member)}</span>
              </button>
              <ConfirmButton
                label={isMe(member) ? 'Leave' : member.pending ? 'Withdraw' : 'Remove'}
                labelSuffix={isMe(member) ? ` ${organization.name}` : ` ${who(member)}`}
                class="danger"
                disabled={acting.busy.value}
                question={
                  isMe(member)
                    ? `Leave ${organization.name}? You lose its workshops and these settings at once.`
                    : member.pending
                      ? `Withdraw the seat for ${member.email}? The address no longer joins ${organization.name} when its account is confirmed.`
                      : `Remove ${member.name} from ${organization.name}? They lose its workshops at once; what they wrote stays.`
                }
                confirm={isMe(member) ? 'Leave the organization' : member.pending ? 'Withdraw seat' : 'Remove member'}
                onConfirm={() => remove(member)}
              />
            </div>
            {refusal && refusedRow.value === member.id && (
              <p class="problem member-problem" role="alert">
                {acting.problem.value}
              </p>
            )}
          </li>
        ))}
      </ul>
      <p role="status" class="done member-said">
        {told.value}
      </p>
      <AddMember organization={organization} onAdded={props.onChange} />
    </>
  );
}

/**
 * Adds a member by address with a role; an address without a confirmed account gets a pending seat.
 * What is typed is kept for this tab until the member is added (kept.ts).
 */
function AddMember(props: { organization: Organization; onAdded: () => Promise<void> }) {
  const form = useKeptForm(keptKey('member', props.organization.id), { email: '', role: 'facilitator' });
  const { email, role } = form.fields;
  const adding = useAction();
  const told = useSignal('');
  const submit = () =>
    adding.run(async () => {
      told.value = '';
      const added = await api.post('/v1/organizations/{id}/members', {
        params: { path: { id: props.organization.id } },
        body: { email: email.value.trim(), role: role.value as Role },
      });
      email.value = '';
      form.forget();
      told.value = added.pending
        ? `${added.email} has no confirmed account yet: a seat as ${ROLE_NAMES[added.role]} waits for it, and a mail says so.`
        : `${added.name} is now ${added.role === 'admin' ? 'an admin' : 'a facilitator'} of ${props.organization.name}.`;
      await props.onAdded();
    });
  return (
    <form class="form add-member" aria-label="Add a member" onSubmit={onSubmit(submit)}>
      <h3>Add a member</h3>
      <Field label="E-mail address" name="email" type="email" value={email} action={adding} required />
      <SelectField
        label="Role"
        value={role}
        options={ROLE_OPTIONS}
        hint="Facilitators run the organization’s workshops; admins also manage these settings."
      />
      <SubmitRow action={adding} label="Add member" status={told.value} />
    </form>
  );
}
