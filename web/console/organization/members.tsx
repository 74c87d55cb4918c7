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
import type { Member, Organization, Role } from './types';
import { rich, t } from '../i18n';

const hidden = (words: string) => <span class="visually-hidden">{words}</span>;
/** Words set after the name, a space before them. */
const spaced = (words: string) => ` ${words}`;

/** The service's 403: the caller was an admin when the page opened, and is not anymore. */
class NoLongerAdmin extends InputProblem {}

const roleOptions = () => [
  { value: 'facilitator', label: t('console.organization.members.role_name', { role: 'facilitator' }) },
  { value: 'admin', label: t('console.organization.members.role_name', { role: 'admin' }) },
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

  /** The service's refusals of a role change or a removal, in this page's words, saying what stays. */
  const inWords = (err: unknown, member: Member, doing: 'role' | 'remove'): unknown => {
    if (!(err instanceof ApiError)) return err;
    const values = {
      me: isMe(member) ? 'yes' : 'no',
      name: member.name,
      organization: organization.name,
      role: member.role,
      doing,
    };
    if (err.status === 409) return new InputProblem(t('console.organization.members.last_admin', values));
    if (err.status === 403) return new NoLongerAdmin(t('console.organization.members.no_longer_admin', values));
    if (err.status === 404) return new InputProblem(t('console.organization.members.gone', values));
    return err;
  };

  const changeRole = (member: Member, role: Role) =>
    act(member, async () => {
      try {
        await api.put('/v1/organizations/{id}/members/{member_id}', { ...path(member), body: { role } });
      } catch (err) {
        throw inWords(err, member, 'role');
      }
      told.value = t('console.organization.members.now', { name: member.name, role });
    });
  const remove = (member: Member) =>
    act(member, async () => {
      try {
        await api.delete('/v1/organizations/{id}/members/{member_id}', path(member));
      } catch (err) {
        throw inWords(err, member, 'remove');
      }
      if (isMe(member)) return navigate('/');
      told.value = member.pending
        ? t('console.organization.members.withdrawn', { email: member.email })
        : t('console.organization.members.removed', { name: member.name, organization: organization.name });
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
      <p class="hint">{t('console.organization.members.intro')}</p>
      <ul class="member-list">
        {members.map((member) => (
          <li key={member.id} class="member-row" data-member={member.id}>
            <div class="member-text">
              <span class="member-name">{member.name}</span>
              {isMe(member) && <span class="meta">{spaced(t('console.organization.members.you'))}</span>}
              <span class="meta member-email">{spaced(member.email)}</span>
              <span class="member-facts">
                <span class={`member-role role-${member.role}`}>
                  {t('console.organization.members.role_name', { role: member.role })}
                </span>
                {member.pending && <span class="member-pending">{t('console.organization.members.pending')}</span>}
              </span>
            </div>
            <div class="row-actions">
              <button
                type="button"
                disabled={acting.busy.value}
                onClick={() => void changeRole(member, member.role === 'admin' ? 'facilitator' : 'admin')}
              >
                {rich('console.organization.members.make', { role: member.role, name: who(member), hidden })}
              </button>
              <ConfirmButton
                label={
                  isMe(member)
                    ? t('console.organization.members.leave')
                    : member.pending
                      ? t('console.organization.members.withdraw')
                      : t('console.organization.members.remove')
                }
                labelSuffix={isMe(member) ? ` ${organization.name}` : ` ${who(member)}`}
                class="danger"
                disabled={acting.busy.value}
                question={
                  isMe(member)
                    ? t('console.organization.members.leave_question', { organization: organization.name })
                    : member.pending
                      ? t('console.organization.members.withdraw_question', {
                          email: member.email,
                          organization: organization.name,
                        })
                      : t('console.organization.members.remove_question', {
                          name: member.name,
                          organization: organization.name,
                        })
                }
                confirm={
                  isMe(member)
                    ? t('console.organization.members.leave_confirm')
                    : member.pending
                      ? t('console.organization.members.withdraw_confirm')
                      : t('console.organization.members.remove_confirm')
                }
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
        ? t('console.organization.members.seat_waits', { email: added.email, role: added.role })
        : t('console.organization.members.added', {
            name: added.name,
            role: added.role,
            organization: props.organization.name,
          });
      await props.onAdded();
    });
  return (
    <form class="form add-member" aria-label={t('console.organization.members.add')} onSubmit={onSubmit(submit)}>
      <h3>{t('console.organization.members.add')}</h3>
      <Field label={t('console.fields.email')} name="email" type="email" value={email} action={adding} required />
      <SelectField
        label={t('console.fields.role')}
        value={role}
        options={roleOptions()}
        hint={t('console.organization.members.role_hint')}
      />
      <SubmitRow action={adding} label={t('console.organization.members.add_submit')} status={told.value} />
    </form>
  );
}
